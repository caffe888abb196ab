/**
 * @module verify/verify-hola.types
 * Request and 200 body of HOLA verification (spec "Verify request and response"; docs/protocol.md §2, §4),
 * plus the facts `/api/testhola` maps onto its own gates.
 */
import { type ParsedHola } from '../hola/hola.types.js';
import { type PassportRecord } from '../passport/passport.types.js';
import { type PublicProfile } from '../profile/public-profile.js';

/** `failureReasons` values, in the order the spec lists them (and this service reports them). */
export const VERIFY_FAILURE_REASONS = Object.freeze([
  'checksum_invalid',
  'timestamp_stale_or_future',
  'nonce_replay',
  'token_missing',
  'token_expired',
  'signature_invalid',
  'public_key_unavailable',
  'public_key_error',
] as const);
export type VerifyFailureReason = (typeof VERIFY_FAILURE_REASONS)[number];

export const DEFAULT_HOLA_MAX_AGE_MS = 300_000;
export const MAX_HOLA_MAX_AGE_MS = 86_400_000;

export interface VerifyHolaRequest {
  readonly hola: unknown;
  /** `constraints.maxAgeMs`: an integer 1..86400000, default 300000. */
  readonly maxAgeMs?: unknown;
  readonly includeProfile?: boolean;
  /** The bearer's token id when a valid JWT was sent (enables the RECIPIENT_MISMATCH rule). */
  readonly callerTokenId?: string | null;
  readonly expectedRecipient?: string;
}

export interface VerifyHolaChecks {
  tokenExists?: boolean;
  tokenActive?: boolean;
  timestampFresh?: boolean;
  nonceReplaySafe?: boolean;
  signatureValid?: boolean;
  checksumValid?: boolean;
}

export interface VerifyHolaWarning {
  readonly code: 'RECIPIENT_MISMATCH' | 'DELEGATION_NOT_CHECKED';
  readonly message: string;
}

/** The 200 body of `POST /api/identity/verify` without `requestId`. */
export interface VerifyHolaBody {
  verified: boolean;
  /** Lowercase sender token id (the issuer for subagent lines). */
  peerTokenId: string;
  /** `MUNDO` or the lowercase recipient token id. */
  destinatary: string;
  checks: VerifyHolaChecks;
  failureReasons: VerifyFailureReason[];
  failureDetails: { reasonCode: VerifyFailureReason; hint: string }[];
  nonceReplayDetails?: { holaTimestamp: string; maxAgeMs: number; firstSeenAt?: string };
  signatureVerificationImplemented: true;
  warnings?: VerifyHolaWarning[];
  isSubagentFormat?: true;
  delegateId?: string;
  issuerTokenId?: string;
  profile?: PublicProfile;
}

/** What verification found out besides the body, for callers that map it to other gates (`/api/testhola`). */
export interface VerifyHolaFacts {
  readonly parsed: ParsedHola;
  /** null when missing or when the chain failed before it was read (`chainError`). */
  readonly passport: PassportRecord | null;
  readonly chainError: boolean;
  readonly maxAgeMs: number;
  /** `floor(now s) - floor(timestamp s)`; negative for lines from the future. */
  readonly ageSeconds: number;
  /** At least one key to check the signature with was available. */
  readonly publicKeyAvailable: boolean;
}

/** A verification: the 200 body to send as it is, and the facts behind it (never serialised). */
export interface VerifyHolaResult {
  readonly body: VerifyHolaBody;
  readonly facts: VerifyHolaFacts;
}
