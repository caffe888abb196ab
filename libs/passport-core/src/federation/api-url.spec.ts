/**
 * Base and API URLs: `isHttpUrl` takes http(s) written plainly; `normalizedBaseUrl` gives a deployment's
 * base URL in its one spelling, the same for the server's PUBLIC_BASE_URL and the CLI's --public-url.
 */
import fc from 'fast-check';
import { isHttpUrl, normalizedBaseUrl } from './api-url.js';

describe('isHttpUrl', () => {
  it.each([
    ['https://api.example.com', true],
    ['http://127.0.0.1:3000/p', true],
    [' https://api.example.com ', true],
    ['http:example.com', false], // no "//": the URL parser would invent the host
    ['https://user:pw@api.example.com', false],
    ['https://api.example.com/a\tb', false],
    ['https://api.example.com/\u200b', false],
    ['javascript:alert(1)', false],
    ['ftp://example.com', false],
    ['//api.example.com', false],
    ['https:\\\\api.example.com', false],
  ])('%j → %s', (value, expected) => {
    expect(isHttpUrl(value)).toBe(expected);
  });
});

describe('normalizedBaseUrl', () => {
  it.each([
    ['HTTPS://API.EXAMPLE.COM:443/p/../q', 'https://api.example.com/q'],
    ['http://Localhost:80/', 'http://localhost'],
    ['https://api.example.com/base///', 'https://api.example.com/base'],
    ['http://[2001:DB8::1]:8443', 'http://[2001:db8::1]:8443'],
    ['https://xn--bcher-kva.example', 'https://xn--bcher-kva.example'],
    ['https://bücher.example', 'https://xn--bcher-kva.example'],
  ])('%j → %j', (value, expected) => {
    expect(normalizedBaseUrl(value)).toBe(expected);
  });

  it.each([
    'https://api.example.com/#',
    'https://api.example.com?',
    'https://api.example.com/?q=1',
    'javascript:x',
    'http://a/b c',
    'https://u:p@a',
  ])('refuses %j', (value) => {
    expect(normalizedBaseUrl(value)).toBeNull();
  });

  it('a path of 500 000 slashes is answered (a trailing-slash regex took 1.4 s at 40 000)', () => {
    expect(normalizedBaseUrl(`https://api.example.com/x${'/'.repeat(500_000)}`)).toBe(
      'https://api.example.com/x',
    );
  });

  it('is idempotent, keeps http(s), and never ends with a slash', () => {
    const host = fc.constantFrom('api.example.com', 'API.Example.COM', '127.0.0.1', '[::1]', 'localhost');
    const port = fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined });
    const segment = fc.stringMatching(/^[A-Za-z0-9._~%-]{0,8}$/);
    fc.assert(
      fc.property(
        fc.constantFrom('http', 'https', 'HTTP'),
        host,
        port,
        fc.array(segment, { maxLength: 4 }),
        (scheme, h, p, path) => {
          const raw = `${scheme}://${h}${p === undefined ? '' : `:${p}`}/${path.join('/')}`;
          const once = normalizedBaseUrl(raw);
          if (once === null) return;
          expect(normalizedBaseUrl(once)).toBe(once);
          expect(once).toMatch(/^https?:\/\//);
          expect(once.endsWith('/')).toBe(false);
        },
      ),
      { numRuns: 500 },
    );
  });
});
