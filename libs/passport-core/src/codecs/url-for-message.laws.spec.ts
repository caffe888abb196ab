/**
 * Property law of urlForMessage on text that is no URL (the case its doc promises too): the userinfo of
 * `scheme://user:password@host` is never quoted, whatever the password holds. A password with an
 * unencoded `#` or `?` (generated passwords often have them) makes the text unparsable, which is exactly
 * when a setting or flag is refused and the text quoted.
 */
import fc from 'fast-check';
import { urlForMessage } from './url-for-message.js';

describe('urlForMessage laws', () => {
  it('never quotes the user name nor any part of the password of scheme://user:password@host, also when a # or ? in the password makes it no URL', () => {
    const word = fc.stringMatching(/^[A-Za-z0-9]{4,8}$/);
    fc.assert(
      fc.property(
        fc.constantFrom('https', 'http', 'redis', 'wss'),
        word.map((w) => `USER${w}`),
        word.map((w) => `PW${w}`),
        fc.constantFrom('#', '?', '/', ':', '%', ''),
        word.map((w) => `TAIL${w}`),
        (scheme, user, head, special, tail) => {
          const raw = `${scheme}://${user}:${head}${special}${tail}@rpc.example.com/path`;
          const quoted = urlForMessage(raw);
          for (const secret of [user, head, tail])
            expect({ raw, quoted, leaks: quoted.includes(secret) }).toEqual({ raw, quoted, leaks: false });
        },
      ),
    );
  });
});
