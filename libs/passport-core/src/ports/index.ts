/**
 * @module @passport/core/ports
 * The ports through which the core reaches the world, and the records they carry. Adapters implement
 * these; `@passport/core/memory` has in-memory ones, and `@passport/core/testing` the contract suites
 * every adapter must pass.
 */

// Chain
export {
  canPeekPassport,
  canRereadPassport,
  ChainUnavailableError,
  isChainUnavailableError,
  type CachedPassportPeek,
  type PassportReread,
  type ChainReader,
  type PageRequest,
} from './chain-reader.port.js';
export { type PassportRecord, type PassportMetadata } from '../passport/passport.types.js';

// Stores
export { REPLAY_DECISION_MARGIN_MS } from './replay-decision-margin.js';
export {
  type RecordOutcome,
  type RecordQuota,
  type ReplayStore,
  type ReplayStoreUsage,
  RecordingPausedError,
  isRecordingPausedError,
  retryAfterSecondsOfPause,
  storeCap,
} from './replay-store.port.js';
export { positiveCap } from './store-cap.js';
export {
  DEFAULT_MAX_OPEN_SESSIONS_PER_PASSPORT,
  hasSyncSessionGet,
  SessionCapacityError,
  isSessionCapacityError,
  SESSION_SUPERSEDED,
  type SessionPage,
  type SessionRecord,
  type SessionStore,
  type SyncSessionStore,
} from './session-store.port.js';
export {
  LoginRecordFailure,
  isLoginRecordFailure,
  type LoginChallengeRecord,
  type LoginRecorder,
} from './login-recorder.port.js';
export {
  type BucketPolicy,
  type RateLimitStore,
  type SyncRateLimitStore,
  type TakeResult,
} from './rate-limit-store.port.js';

// Webhook address classification (the app supplies one)
export { type AddressClass, type AddressClassifier } from './address-classifier.port.js';

// Clock and signatures
export { systemClock, type Clock } from './clock.port.js';
export {
  createRemovalHorizon,
  uncappedRemoval,
  DEFAULT_REMOVAL_MAX_LAG_MS,
  type RemovalHorizon,
  type RemovalHorizonOptions,
} from './removal-horizon.js';
export { HoldDeadline } from './hold-deadline.js';
export {
  type AsyncSignatureVerifier,
  type SignatureVerifier,
  type Signer,
} from './signature-verifier.port.js';
