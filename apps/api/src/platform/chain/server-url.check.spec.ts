import { serverUrlMismatch, serverUrlWarning } from './server-url.check.js';

describe('the server passport home against PUBLIC_BASE_URL', () => {
  it('differs only as login compares them (case, default port and trailing slash are the same URL)', () => {
    expect(
      serverUrlMismatch({ subjectuniqueidentifier_url: 'HTTP://LocalHost:80/' }, 'http://localhost'),
    ).toBe(undefined);
    expect(serverUrlMismatch({}, 'http://localhost:3001')).toBe(undefined);
    expect(
      serverUrlMismatch({ subjectuniqueidentifier_url: 'http://localhost:3000' }, 'http://localhost:3001'),
    ).toEqual({ publicBaseUrl: 'http://localhost:3001', serverPassportUrl: 'http://localhost:3000' });
  });

  it('warns in one line naming PUBLIC_BASE_URL, the passport URL and the fix for the chain in use', () => {
    const urls = { publicBaseUrl: 'http://localhost:3001', serverPassportUrl: 'http://localhost:3000' };
    const ledger = serverUrlWarning('ledger', urls);
    expect(ledger).not.toContain('\n');
    expect(ledger).toMatch(/^PUBLIC_BASE_URL http:\/\/localhost:3001 is not .*"http:\/\/localhost:3000"/);
    expect(ledger).toContain('set PUBLIC_BASE_URL=http://localhost:3000 (PORT may differ)');
    expect(ledger).toContain('DATA_DIR');
    expect(serverUrlWarning('near', urls)).toContain(
      'whose subjectuniqueidentifier_url is http://localhost:3001',
    );
  });
});
