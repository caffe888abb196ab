/**
 * Writes test-vectors/family-issuer.json: family signatures made the way the production issuer makes
 * them, computed with node:crypto alone (no @passport/core, no @noble), so the spec replaying them
 * compares the core with an independent implementation of the issuer's rule:
 *   payload = {token_id: <the record's token id>, max_requests: String(m.max_requests),
 *              maxrq_window: String(m.maxrq_window), ...the other signed fields m has}
 *   digest  = SHA-512(JSON of payload with keys sorted, undefined members dropped)
 *   signature = base64url(Ed25519_sign(root seed, digest))
 * Passports minted this way carry no `token_id` in their metadata.
 * Run: `npx tsx libs/passport-core/scripts/vectors/family-issuer.vectors.ts`.
 */
import { createHash, createPrivateKey, createPublicKey, sign } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const seed = createHash('sha256').update('passport-vectors/family/root').digest();
// An Ed25519 private key in PKCS#8 DER is a fixed 16-byte prefix followed by the 32-byte seed.
const privateKey = createPrivateKey({
  key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]),
  format: 'der',
  type: 'pkcs8',
});
const publicKeyHex = createPublicKey(privateKey)
  .export({ format: 'der', type: 'spki' })
  .subarray(-32)
  .toString('hex');
const family = 'bc=local;sc=passport.test;id=devroot';

const OPTIONAL_FIELDS = [
  'openapijson_url',
  'not_after',
  'not_before',
  'webhook_cidr',
  'allowed_cidr',
  'allowed_iso3166list',
  'jwt_duration',
  'permissioned_routes',
  'serviceprovider_id',
  'subjectuniqueidentifier_url',
];

function issuerPayload(tokenId: string, metadata: Record<string, string>): Record<string, string> {
  const payload: Record<string, string> = {
    token_id: tokenId,
    max_requests: String(metadata.max_requests),
    maxrq_window: String(metadata.maxrq_window),
  };
  for (const field of OPTIONAL_FIELDS) if (metadata[field] !== undefined) payload[field] = metadata[field];
  return payload;
}

const cases: unknown[] = [];
function add(note: string, tokenId: string, metadata: Record<string, string>) {
  const payload = issuerPayload(tokenId, metadata);
  const canonicalJson = JSON.stringify(payload, Object.keys(payload).sort());
  const digest = createHash('sha512').update(canonicalJson, 'utf8').digest();
  const signature = sign(null, digest, privateKey).toString('base64url');
  cases.push({ note, tokenId, metadata, canonicalJson, digestHex: digest.toString('hex'), signature });
}

add(
  'a production-shaped passport: token id from the record, none in the metadata; unsigned fields ignored',
  'chbvcnurbkuw',
  {
    openapijson_url: 'https://api.example/openapi.json',
    not_after: '2027-12-31',
    not_before: '2026-01-01',
    max_requests: '48',
    maxrq_window: '60',
    webhook_url: 'https://agent.example/gw',
    webhook_cidr: '203.0.113.0/24',
    allowed_cidr: '0.0.0.0/0',
    allowed_iso3166list: '{"allow":["ES","FR"]}',
    jwt_duration: '1800',
    permissioned_routes: '{"entities":{"methods":{"/api/sessions":"10"}}}',
    serviceprovider_id: family,
    subjectuniqueidentifier_url: 'https://api.example',
    userselected_dn: 'NNSWF="Smith, John",Creature=robot',
  },
);
add('no quota in the metadata: the issuer signs the strings "undefined"', 'bhahbkbramax', {
  serviceprovider_id: family,
});
add('non-ASCII values are signed as their JSON text', 'lhsrldbjsnlh', {
  serviceprovider_id: family,
  subjectuniqueidentifier_url: 'https://münchen.example/ñ',
  not_after: '0',
  max_requests: '0',
  maxrq_window: '3600',
});

const vectors = {
  source:
    "the production issuer's family signature; generated with node:crypto only by scripts/vectors/family-issuer.vectors.ts",
  serviceproviderId: family,
  rootSeedHex: seed.toString('hex'),
  rootPublicKeyHex: publicKeyHex,
  cases,
};
const target = fileURLToPath(new URL('../../test-vectors/family-issuer.json', import.meta.url));
writeFileSync(target, JSON.stringify(vectors, null, 2) + '\n');
console.log(`wrote ${cases.length} issuer family vectors to ${target}`);
