/**
 * @module ports/session-store.port
 * Login sessions behind the JWTs. A JWT is honoured only while its session is open and unexpired,
 * so logout and revocation take effect everywhere the store is shared.
 */

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
  /** Sessions newest first. */
  list(page: { offset: number; limit: number }): Promise<SessionPage>;
  /** Deletes sessions expired or closed before `nowMs`; returns how many were removed. */
  sweep(nowMs: number): Promise<number>;
  countOpen(nowMs: number): Promise<number>;
}
