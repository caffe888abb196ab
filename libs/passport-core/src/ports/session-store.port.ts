/**
 * @module ports/session-store.port
 * Login sessions behind the JWTs. A JWT is honoured only while its session is open and unexpired,
 * so logout and revocation take effect everywhere the store is shared.
 *
 * Bounds every adapter keeps (no passport can log another out):
 * - per passport: at most `maxOpenPerPassport` open sessions; a login beyond it closes that
 *   passport's own oldest open sessions (close reason `superseded`);
 * - in all: at most `maxEntries` stored sessions; when full after dropping closed and expired ones,
 *   `create` throws `SessionCapacityError` and stores nothing (the login is refused; no open session
 *   of anyone is evicted).
 */
import { crossCopyCheck } from '../errors/cross-copy.js';

/** Thrown by `SessionStore.create` when the store is full of open sessions. */
export class SessionCapacityError extends Error {
  override readonly name = 'SessionCapacityError';
  constructor(readonly maxEntries: number) {
    super(`the session store holds its maximum of ${maxEntries} open sessions`);
  }
}

/** A `SessionCapacityError` of this copy of the package or of another copy (`instanceof` is false then). */
export const isSessionCapacityError = crossCopyCheck(
  SessionCapacityError,
  '@passport/core.SessionCapacityError',
);

/** The per-passport bound of open sessions when an adapter is given none. */
export const DEFAULT_MAX_OPEN_SESSIONS_PER_PASSPORT = 100;

/** Close reason of sessions closed to respect the per-passport bound. */
export const SESSION_SUPERSEDED = 'superseded';

export interface SessionRecord {
  /** `sess_<tokenId>_<ULID>` */
  readonly sessionId: string;
  readonly tokenId: string;
  readonly ownerId: string;
  /** JWT id of the token issued with this session. */
  readonly jti: string;
  readonly createdAtMs: number;
  readonly expiresAtMs: number;
  readonly closedAtMs: number | null;
  readonly closeReason: string | null;
  /** Federated home URL, when the login was federated. */
  readonly federatedFrom: string | null;
  /** Tokens renewed within this session (0 when absent). */
  readonly renewalCount?: number;
  /** When the last renewal was issued (ms), or null. */
  readonly lastRenewedAtMs?: number | null;
}

export interface SessionPage {
  readonly items: SessionRecord[];
  readonly total: number;
}

export interface SessionStore {
  create(session: SessionRecord): Promise<void>;
  get(sessionId: string): Promise<SessionRecord | null>;
  /** Closes an open session; false when it does not exist or was already closed. */
  close(sessionId: string, reason: string, nowMs: number): Promise<boolean>;
  /** Records a token renewal (count + 1, last time); false when the session is not open. */
  recordRenewal(sessionId: string, nowMs: number): Promise<boolean>;
  /** Sessions newest first. */
  list(page: { offset: number; limit: number }): Promise<SessionPage>;
  /** Deletes sessions expired or closed before `nowMs`; returns how many were removed. */
  sweep(nowMs: number): Promise<number>;
  countOpen(nowMs: number): Promise<number>;
}

/**
 * A store that answers `get` on the calling stack (its sessions in this process or a local file): the
 * bearer tier reads the session on every request, and a synchronous read spares it a promise.
 */
export interface SyncSessionStore extends SessionStore {
  /** The same read as `get`, answered synchronously. */
  getSync(sessionId: string): SessionRecord | null;
}

export function hasSyncSessionGet(store: SessionStore): store is SyncSessionStore {
  return typeof (store as Partial<SyncSessionStore>).getSync === 'function';
}
