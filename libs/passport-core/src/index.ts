/**
 * @module @passport/core
 * The public API of the Passport protocol library: build, parse and verify HOLA lines, decode faces, log
 * in, sign and check families, delegations and webhooks, build DID documents. Browser-safe: this entry
 * imports no `node:` module (the node:crypto lane is `@passport/core/node`).
 *
 * Named exports only, so that what is public stays a decision: each area has its own subpath with the rest
 * of its API (`@passport/core/hola`, `/login`, `/did`, …; see package.json `exports`). Internals stay
 * unexported.
 */

// HOLA lines: build, parse, checksum, verify
export { buildHolaLine, type BuildHolaParams } from './hola/hola.builder.js';
export { parseHola } from './hola/hola.parser.js';
export { holaChecksum } from './hola/hola.checksum.js';
export {
  type ParsedHola,
  type HolaParseResult,
  type HolaValidationFailure,
  type HolaReasonCode,
} from './hola/hola.types.js';
export {
  createHolaVerifier,
  type HolaVerifier,
  type HolaVerifierDeps,
} from './verify/verify-hola.use-case.js';
export {
  VERIFY_FAILURE_REASONS,
  type VerifyHolaRequest,
  type VerifyHolaResult,
  type VerifyFailureReason,
} from './verify/verify-hola.types.js';

// Token ids and faces
export { decodeFace, randomFaceTokenId, type Face } from './token-id/face.decoder.js';
export { isTokenId, normalizeTokenId } from './token-id/token-id.js';

// Ed25519 signature lanes (portable; the node:crypto lane is in @passport/core/node)
export { createNobleSigner, publicKeyFromSeed } from './crypto/noble.signer.js';
export { createNobleVerifier } from './crypto/noble.verifier.js';

// Ports and the adapters an integrator needs first
export {
  ChainUnavailableError,
  isChainUnavailableError,
  type ChainReader,
} from './ports/chain-reader.port.js';
export { systemClock, type Clock } from './ports/clock.port.js';
export { type ReplayStore } from './ports/replay-store.port.js';
export {
  type Signer,
  type SignatureVerifier,
  type AsyncSignatureVerifier,
} from './ports/signature-verifier.port.js';
export { type PassportRecord, type PassportMetadata } from './passport/passport.types.js';
export { MemoryReplayStore } from './memory/memory-replay.store.js';

// Login and JWT claims; a client's checks of a federated token and of the server passport
export { validateLoginRequest, type LoginRequest } from './login/login-request.validator.js';
export {
  buildLoginRequest,
  type LoginIdentity,
  type LoginRequestBody,
} from './login/login-request.builder.js';
export {
  challengeAlreadyUsed,
  createLoginVerifier,
  type LoginVerifier,
} from './login/login-credentials.verifier.js';
export { sequentialLoginRecorder } from './login/login-recorder.js';
export { buildJwtClaims, type PassportJwtClaims } from './login/jwt-claims.js';
export { checkFederatedClaims, checkServerPassport } from './federation/federated-token.checks.js';
export { createRenewingFetch, type RenewingFetch } from './client/renewing-fetch.js';

// Families, distinguished names, profiles, DID documents, minting fees
export { signFamilyMetadata, verifyFamilySignature } from './family/family-signature.js';
export { FamilyVerdictCache, type FamilyVerdictCacheOptions } from './family/family-verdict.cache.js';
export { parseDn, type ParsedDn } from './dn/dn.parser.js';
export { buildPublicProfile, type PublicProfile } from './profile/public-profile.js';
export { buildDidDocument, parseDid, type DidDocument } from './did/did-document.js';
export { computeMintFee } from './signclient/mint-fee.js';

// Delegated (subagent) signers and webhooks
export { signDelegation, checkDelegation } from './delegation/delegation.js';
export { verifySubagent } from './delegation/subagent-verification.js';
export { signWebhook, verifyWebhookRequest } from './webhook/webhook-signature.js';
export { resolveWebhookTarget } from './webhook/webhook-target.js';

// Codecs and NEAR credential files
export { encodeBase32, decodeBase32 } from './codecs/base32.codec.js';
export { encodeBase64Url, decodeBase64Url } from './codecs/base64url.codec.js';
export { encodeBase58, decodeBase58 } from './codecs/base58.codec.js';
export { encodeHex, decodeHex } from './codecs/hex.codec.js';
export { utf8 } from './codecs/utf8.codec.js';
export {
  parseNearCredentials,
  formatNearCredentials,
  nearCredentialsFromSeed,
  type NearCredentials,
} from './credentials/near-credentials.js';

// Errors
export { ERROR_CATALOGUE, describeError, type ErrorCode } from './errors/error-catalogue.js';
export { PassportError, isPassportError } from './errors/passport.error.js';
