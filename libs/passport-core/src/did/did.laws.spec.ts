/**
 * Property laws of DIDs (docs/protocol.md §4): parseDid inverts passportDid and refuses every other text
 * with INVALID_DID and the reason a reference gives; the did:web alias resolves, by the did:web
 * specification's read algorithm, to the URL didWebDocumentUrl names, for any https base URL path.
 */
import fc from 'fast-check';
import { PassportError } from '../errors/passport.error.js';
import { didWebAlias, didWebDocumentUrl, parseDid, passportDid } from './did-document.js';

function referenceReason(did: unknown): string {
  if (typeof did !== 'string') return 'not_a_string';
  if (!did.startsWith('did:passport:')) return did.startsWith('did:') ? 'unsupported_method' : 'not_a_did';
  const id = did.slice('did:passport:'.length);
  if (/^[a-zA-Z]{12}[#/?]/.test(id)) return 'did_url';
  if (!/^[a-zA-Z]{12}$/.test(id)) return 'invalid_token_id';
  return /^[a-z]{12}$/.test(id) ? 'ok' : 'not_lowercase';
}

/** did:web §3.2.1 (Read): ':' → '/', the host's %3A → ':', https, then /did.json. */
function resolveDidWeb(did: string): URL {
  const parts = did.slice('did:web:'.length).split(':');
  return new URL(`https://${decodeURIComponent(parts[0])}/${parts.slice(1).join('/')}/did.json`);
}

describe('DID laws', () => {
  it('round trip and oracle: parseDid(passportDid(t)) is t; any other text is INVALID_DID with the reference reason', () => {
    const letters = fc.string({ unit: fc.constantFrom(...'abcxyzABZ'), minLength: 11, maxLength: 13 });
    const did = fc.oneof(
      letters.map((t) => passportDid(t)),
      fc
        .constantFrom('did:', 'did:web:', 'did:passport:', 'DID:passport:')
        .chain((p) => letters.map((t) => p + t)),
      fc
        .tuple(letters, fc.constantFrom('#', '/', '?'), fc.string({ maxLength: 8 }))
        .map(([t, mark, rest]) => passportDid(t) + mark + rest),
      fc.string({ unit: 'binary', maxLength: 30 }),
      fc.oneof(
        fc.integer(),
        fc.constant(null),
        fc.constant(undefined),
        fc.array(fc.string(), { maxLength: 2 }),
      ),
    );
    fc.assert(
      fc.property(did, (value) => {
        let reason = 'ok';
        try {
          expect(parseDid(value).tokenId).toBe((value as string).slice('did:passport:'.length));
        } catch (e) {
          expect(e).toBeInstanceOf(PassportError);
          expect((e as PassportError).code).toBe('INVALID_DID');
          reason = (e as PassportError).details?.reason as string;
        }
        expect(reason).toBe(referenceReason(value));
      }),
      { numRuns: 2000 },
    );
  });

  it('oracle: the did:web alias resolves (did:web read algorithm) to didWebDocumentUrl, segment by segment', () => {
    const segment = fc.string({
      unit: fc.constantFrom(..."aZ09-._~!$&'()*+,;=:@é[]", '%20', '%2F', '%3A', '%25'),
      minLength: 1,
      maxLength: 6,
    });
    fc.assert(
      fc.property(
        fc.constantFrom('api.example.com', 'API.example.com:8443', '127.0.0.1:3000'),
        fc.array(segment, { maxLength: 3 }),
        (host, segments) => {
          const base = `https://${host}/${segments.join('/')}`;
          const alias = didWebAlias('bjbvcjzqbdsj', base);
          const resolved = resolveDidWeb(alias);
          const served = new URL(didWebDocumentUrl('bjbvcjzqbdsj', base));
          const decoded = (u: URL) => u.pathname.split('/').map(decodeURIComponent);
          expect([resolved.host, decoded(resolved)]).toEqual([served.host, decoded(served)]);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
