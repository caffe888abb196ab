/**
 * @module login/login-mode
 * The server's login mode (`LOGIN_MODE`, docs/protocol.md §3) and what it admits. A passport relates to
 * the server as a `partner` (its `serviceprovider_id` shares a family root with the server's) or a
 * `peer` (another family). `partner` mode admits partners, `p2p` admits peers, `promiscuous` both.
 * A rejection is `LOGIN_MODE_POLICY_REJECTED_<PEER|PARTNER>_BY_<MODE>`, e.g. `…_PEER_BY_PARTNER`.
 */
import { type ErrorCode } from '../errors/error-catalogue.js';

export const LOGIN_MODES = Object.freeze(['partner', 'p2p', 'promiscuous'] as const);
export type LoginMode = (typeof LOGIN_MODES)[number];
export type LoginRelation = 'partner' | 'peer';

export function isLoginMode(value: unknown): value is LoginMode {
  return typeof value === 'string' && (LOGIN_MODES as readonly string[]).includes(value);
}

/** The rejection code for this relation under this mode, or null when the mode admits it. */
export function loginModeRejection(mode: LoginMode, relation: LoginRelation): ErrorCode | null {
  const admitted =
    mode === 'promiscuous' || (mode === 'partner' ? relation === 'partner' : relation === 'peer');
  return admitted ? null : `LOGIN_MODE_POLICY_REJECTED_${relation.toUpperCase()}_BY_${mode.toUpperCase()}`;
}

/**
 * Rejection of a same-family passport issued for another API when `LOGIN_ACCEPT_FOREIGN` is off:
 * `LOGIN_MODE_POLICY_REJECTED_FOREIGN_BY_<MODE>` (same prefix, so clients treat it as a policy refusal).
 */
export function foreignRejection(mode: LoginMode): ErrorCode {
  return `LOGIN_MODE_POLICY_REJECTED_FOREIGN_BY_${mode.toUpperCase()}`;
}
