/**
 * Property laws of the links a public profile and a DID document show: (1) a webhook URL is shown only
 * when the webhook sender takes it (docs: "the profile, the DID document and signclient read webhook_url
 * with this same rule"); (2) a web URL kept as written is read by a URL parser as written: the host a
 * reader sees after `//` (and after any `@`) is the host a browser goes to.
 */
import fc from 'fast-check';
import { type AddressClassifier } from '../ports/address-classifier.port.js';
import { resolveWebhookTarget } from '../webhook/webhook-target.js';
import { webhookUrlOrNull, webUrlOrNull } from './profile-links.js';

const classifier: AddressClassifier = {
  classify: () => null,
  inCidrList: () => true,
} as unknown as AddressClassifier;
// The sender's URL refusals but query_or_fragment: showing a base URL with a query is not promised away.
const URL_REASONS = ['empty', 'too_long', 'unparsable', 'scheme_not_http', 'userinfo', 'port_not_allowed'];
const piece = fc.constantFrom(
  'https://',
  'http://',
  'evil.example',
  'bank.example',
  '\\',
  '/',
  '@',
  ':',
  'u',
  '8443',
  '%5C',
  '.',
  '?',
  '#',
  'p',
);
const urlish = fc.oneof(
  fc.array(piece, { minLength: 1, maxLength: 7 }).map((a) => a.join('')),
  // host, separator, userinfo-looking part, another host: where a reader and a parser may part ways
  fc
    .tuple(
      fc.constantFrom('https://', 'http://', ''),
      fc.constantFrom('evil.example', 'u:p', ''),
      fc.constantFrom('\\', '/', '%5C', '', '\\\\'),
      fc.constantFrom('@', ''),
      fc.constantFrom('bank.example', 'bank.example/a.png'),
    )
    .map((a) => a.join('')),
);

describe('profile link laws', () => {
  it('a webhook URL the profile or DID shows is one the webhook sender does not refuse as a URL', () => {
    fc.assert(
      fc.property(urlish, (value) => {
        const shown = webhookUrlOrNull(value);
        if (shown === null) return;
        const sent = resolveWebhookTarget(value, { classifier });
        const refusedAsUrl = !sent.ok && URL_REASONS.includes(sent.reason) ? sent.reason : null;
        expect({ value, shown, refusedAsUrl }).toEqual({ value, shown, refusedAsUrl: null });
      }),
      { numRuns: 3000 },
    );
  });

  it('a web URL is shown with the host a browser goes to: the text after // up to / ? # and after its last @', () => {
    fc.assert(
      fc.property(urlish, (value) => {
        const shown = webUrlOrNull(value);
        if (shown === null) return;
        // A reader takes the host after the slashes, up to / ? #, after its last @ (a backslash is no separator to a reader).
        const authority = shown.replace(/^https?:\/+/i, '').split(/[/?#]/, 1)[0];
        const afterAt = authority.slice(authority.lastIndexOf('@') + 1);
        // (Read through the parser too, so that 8443 is 0.0.32.251 on both sides: the law is about which part is the host.)
        const readerHost = URL.canParse(`https://${afterAt}`)
          ? new URL(`https://${afterAt}`).hostname
          : afterAt;
        expect({ shown, host: new URL(shown).hostname }).toEqual({ shown, host: readerHost });
      }),
      { numRuns: 3000 },
    );
  });
});
