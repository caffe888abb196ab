import fc from 'fast-check';
import { hasUnprintable } from './printable-text.js';
import { urlForMessage } from './url-for-message.js';

describe('urlForMessage', () => {
  it('keeps a plain URL as it is', () => {
    expect(urlForMessage('https://api.example.com:8443/p')).toBe('https://api.example.com:8443/p');
  });

  it.each([
    ['https://admin:S3CRET@api.example.com', 'https://…@api.example.com'],
    ['https://api.example.com/?key=S3CRET', 'https://api.example.com/?…'],
    ['https://api.example.com/#S3CRET', 'https://api.example.com/#…'],
    ['https://u:S3CRET@[::1/', 'https://…@[::1/'],
    ['wss://u:S3CRET@rpc.example/', 'wss://…@rpc.example/'],
    ['https:\\\\u:S3CRET@host', 'https:\\\\…@host'],
    ['u:S3CRET@host', '…@host'],
    ['ADMINUSER:S3#CRET@rpc.example.com', '…@rpc.example.com'],
    ['https://a@b:S3CRET@host/p?x#y', 'https://…@host/p?…'],
    ['https://admin:S3CR#ET@api.example.com', 'https://…@api.example.com'],
    ['https://admin:S3CR?ET@api.example.com', 'https://…@api.example.com'],
    ['https://admin:S3CR#ET@rpc.example/?key=x', 'https://…@rpc.example/?…'],
  ])('%s is quoted as %s', (raw, quoted) => {
    expect(urlForMessage(raw)).toBe(quoted);
  });

  it('never keeps what a URL parser reads as its password, query or fragment, and is printable and bounded', () => {
    const secret = fc.stringMatching(/^[A-Za-z0-9]{6,12}$/).map((s) => `SECRET${s}`);
    fc.assert(
      fc.property(
        fc.webUrl(),
        fc.record({ password: fc.option(secret), query: fc.option(secret), fragment: fc.option(secret) }),
        fc.nat({ max: 300 }),
        (url, { password, query, fragment }, max) => {
          const parsed = new URL(url);
          if (password !== null) {
            parsed.username = 'user';
            parsed.password = password;
          }
          if (query !== null) parsed.search = `?key=${query}`;
          if (fragment !== null) parsed.hash = fragment;
          const quoted = urlForMessage(parsed.href, max);
          for (const hidden of [password, query, fragment])
            if (hidden !== null) expect(quoted).not.toContain(hidden);
          expect(quoted.length).toBeLessThanOrEqual(max);
          expect(hasUnprintable(quoted)).toBe(false);
        },
      ),
    );
  });
});
