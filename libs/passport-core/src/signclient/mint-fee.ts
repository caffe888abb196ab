/**
 * @module signclient/mint-fee
 * The minting fee the server expects for a passport's metadata (docs/protocol.md §4), and the comparison
 * with the fee the client computed.
 *
 *   collectible (tier, or `not_after == "0"`):  496
 *   enterprise  (tier, or `max_requests == "4999"`):  1806 * ceil(days) / 365
 *   personal    (otherwise):  max(0.28 * (max_requests/100) * (3600/maxrq_window) * (ceil(days)/365), 0.018)
 *
 * where `days` = (not_after − now) / 1 day. Decisions for cases §4 leaves open, all answered with
 * 400 `SIGNCLIENT_INVALID_REQUEST` `{field, reason}`:
 * - an explicit `tier` wins over the metadata hints; the hints are checked collectible first;
 * - enterprise and personal need a bounded, readable `not_after` in the future (ceil of a positive
 *   fraction of a day is 1: a one-hour passport pays one day); `0`/empty `not_after` has no day count;
 * - personal needs `max_requests` and `maxrq_window` as positive decimal integers: `max_requests`
 *   `0` means "unlimited" for the rate limiter, which the minimum fee must not buy;
 * - the client fee is a finite number ≥ 0 or a decimal string; a difference above 1e-6 is
 *   `SIGNCLIENT_FEE_MISMATCH` with `{message, clientFee, serverFee}` as strings (JavaScript's
 *   shortest round-trip decimal form).
 */
import { PassportError } from '../errors/passport.error.js';
import { parsePassportTimeBound } from '../passport/passport-conditions.js';

export const MINT_TIERS = Object.freeze(['personal', 'enterprise', 'collectible'] as const);
export type MintTier = (typeof MINT_TIERS)[number];

export const COLLECTIBLE_FEE = 496;
export const ENTERPRISE_YEARLY_FEE = 1806;
export const ENTERPRISE_MAX_REQUESTS = '4999';
export const PERSONAL_RATE = 0.28;
export const PERSONAL_MIN_FEE = 0.018;
export const FEE_TOLERANCE = 1e-6;
const DAY_MS = 86_400_000;

export interface MintFee {
  readonly tier: MintTier;
  readonly fee: number;
  /** ceil(days until not_after); null for collectibles. */
  readonly daysUntilExpiry: number | null;
}

/** The metadata values the fee reads (strings as on chain). */
export interface MintFeeInputs {
  readonly not_after?: string;
  readonly max_requests?: string;
  readonly maxrq_window?: string;
}

export function computeMintFee(values: MintFeeInputs, options: { tier?: MintTier; nowMs: number }): MintFee {
  const tier = options.tier ?? impliedTier(values);
  if (tier === 'collectible') {
    // Unbounded as a rule; a date, when one is written, must not have passed (a window never live).
    const end = parsePassportTimeBound(values.not_after, 'end');
    if (end.kind === 'instant' && end.ms <= options.nowMs)
      throw signClientInvalid('not_after', 'must be in the future');
    return { tier, fee: COLLECTIBLE_FEE, daysUntilExpiry: null };
  }
  const days = daysUntilExpiry(values.not_after, options.nowMs);
  if (tier === 'enterprise')
    return { tier, fee: (ENTERPRISE_YEARLY_FEE * days) / 365, daysUntilExpiry: days };
  const maxRequests = positiveInteger(values.max_requests, 'max_requests');
  const window = positiveInteger(values.maxrq_window, 'maxrq_window');
  const fee = Math.max(
    PERSONAL_RATE * (maxRequests / 100) * (3600 / window) * (days / 365),
    PERSONAL_MIN_FEE,
  );
  return { tier, fee, daysUntilExpiry: days };
}

export function impliedTier(values: MintFeeInputs): MintTier {
  if (values.not_after === '0') return 'collectible';
  if (values.max_requests === ENTERPRISE_MAX_REQUESTS) return 'enterprise';
  return 'personal';
}

/** Parses the client's fee: a finite number ≥ 0 or a plain decimal string. */
export function parseClientFee(raw: unknown): number {
  if (typeof raw === 'number' && Number.isFinite(raw) && raw >= 0) return raw;
  if (typeof raw === 'string' && /^\d{1,15}(\.\d{1,18})?$/.test(raw)) return Number(raw);
  throw signClientInvalid(
    'mintingfee',
    raw === undefined || raw === null || raw === '' ? 'missing' : 'must be a non-negative decimal number',
  );
}

/** Throws `SIGNCLIENT_FEE_MISMATCH` when the fees differ by more than 1e-6. */
export function assertFeeMatches(clientFee: number, serverFee: number): void {
  if (Math.abs(clientFee - serverFee) > FEE_TOLERANCE) {
    throw new PassportError('SIGNCLIENT_FEE_MISMATCH', {
      message: `The minting fee sent (${clientFee}) differs from the fee this server computes (${serverFee}).`,
      clientFee: String(clientFee),
      serverFee: String(serverFee),
    });
  }
}

function daysUntilExpiry(notAfter: string | undefined, nowMs: number): number {
  const bound = parsePassportTimeBound(notAfter, 'end');
  if (bound.kind === 'unbounded')
    throw signClientInvalid('not_after', 'must be a date in the future for this tier');
  if (bound.kind === 'invalid') throw signClientInvalid('not_after', 'unreadable date');
  const ms = bound.ms - nowMs;
  if (!(ms > 0)) throw signClientInvalid('not_after', 'must be in the future');
  return Math.ceil(ms / DAY_MS);
}

function positiveInteger(raw: string | undefined, field: string): number {
  if (raw === undefined || raw === '') throw signClientInvalid(field, 'missing');
  const n = /^\d{1,15}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw signClientInvalid(field, 'must be a positive integer');
  return n;
}

export function signClientInvalid(field: string, reason: string): PassportError {
  return new PassportError('SIGNCLIENT_INVALID_REQUEST', { field, reason });
}
