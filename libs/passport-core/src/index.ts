/**
 * @module @passport/core
 * The pure protocol domain of the Passport Identity API. Browser-safe: this entry imports no `node:`
 * module; the node:crypto signature lane lives in `@passport/core/node`.
 *
 * Exports are explicit and grouped by concern; add new ones to the matching group.
 */

// Errors
export * from './errors/error-catalogue.js';
export * from './errors/passport.error.js';

// Ports
export * from './ports/chain-reader.port.js';
export * from './ports/replay-store.port.js';
export * from './ports/session-store.port.js';
export * from './ports/clock.port.js';
export * from './ports/signature-verifier.port.js';
export * from './ports/rate-limit-store.port.js';

// Passport records
export * from './passport/passport.types.js';

// Codecs
export * from './codecs/base32.codec.js';
export * from './codecs/base64url.codec.js';
export * from './codecs/base58.codec.js';
export * from './codecs/hex.codec.js';
export * from './codecs/utf8.codec.js';
export * from './codecs/utf8-pooled.codec.js';
export * from './codecs/account-id.js';

// Passport conditions and owner keys
export * from './passport/passport-conditions.js';
export * from './passport/owner-keys.js';

// Key files
export * from './credentials/near-credentials.js';
export * from './credentials/near-key-text.js';

// Families
export * from './family/canonical-json.js';
export * from './family/serviceprovider-id.js';
export * from './family/family-signature.js';
export * from './family/family-membership.js';

// Login, JWT claims, privilege and federation
export * from './login/login-request.validator.js';
export * from './login/login-mode.js';
export * from './login/login-credentials.verifier.js';
export * from './login/jwt-claims.js';
export * from './login/jwt-renewal.js';
export * from './client/renewing-fetch.js';
export * from './login/ulid.js';
export * from './auth/permissioned-routes.js';
export * from './federation/api-url.js';
export * from './federation/federated-token.checks.js';

// Token ids and faces (worker A)
export * from './token-id/token-id.js';
export * from './token-id/face-categories.js';
export * from './token-id/face.decoder.js';

// Rate limiting and in-memory adapters (worker B2)
export * from './rate-limit/token-bucket.js';
export * from './adapters/memory/index.js';

// Documents: DN, profiles, agent listing, DID (worker B2)
export * from './dn/dn.parser.js';
export * from './profile/disclaimer.js';
export * from './profile/public-profile.js';
export * from './profile/full-identity.js';
export * from './paging/offset-page.js';
export * from './profile/agent-listing.js';
export * from './did/did-document.js';

// Minting: fees and family signing of new passports (worker B2)
export * from './signclient/mint-fee.js';
export * from './signclient/sign-client.js';

// Delegated (subagent) signers (worker B2)
export * from './delegation/delegation.js';
export * from './delegation/subagent-verification.js';

// Webhooks: signing, receiver verification, target and address rules (worker B2)
export * from './webhook/webhook-signature.js';
export * from './webhook/ip-address.js';
export * from './webhook/webhook-target.js';

// Ed25519 signature lanes (portable; the node:crypto lane is in @passport/core/node)
export * from './crypto/ed25519-policy.js';
export * from './crypto/noble.verifier.js';
export * from './crypto/noble.signer.js';

// HOLA lines: parse, checksum, build (worker A)
export * from './hola/hola.types.js';
export * from './hola/hola.checksum.js';
export * from './hola/hola-timestamp.js';
export * from './hola/hola.parser.js';
export * from './hola/hola.builder.js';

// HOLA verification use case (worker A)
export * from './verify/verify-hola.types.js';
export * from './verify/verify-hola.use-case.js';
