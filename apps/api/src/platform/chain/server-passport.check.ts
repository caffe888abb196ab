/**
 * Whether the server's own passport, read at start, is still usable: found, unrevoked, live, and owned
 * by the account whose key this process signs with. The passport may be revoked (or transferred) on
 * chain while the server runs, and reading it only at start would keep issuing JWTs that name it. Login
 * refuses to issue tokens while the passport is unusable (503), and health says why.
 * Reads go through the cached chain reader (≤ 5 s old), on the calling stack when the answer is cached.
 */
import { ChainUnavailableError, PassportError, type ChainReader, type PassportRecord } from '@passport/core';
import {
  isContractTrusted,
  isPassportLive,
  isPassportRevoked,
  passportNotAfterMs,
} from '@passport/core/passport';
import { canPeekPassport } from '@passport/core/ports';
import { withReservedChainReads } from '@passport/adapters/caching';
import { type ServerIdentity } from '../infrastructure/server-identity.js';
import { hasTimeBounds } from './passport-time-bounds.js';

export type ServerPassportProblem =
  | 'server_passport_not_found'
  | 'server_passport_revoked'
  | 'server_passport_transferred'
  | 'server_passport_not_live'
  | 'server_passport_contract_untrusted';

/** How long a verdict on a time-bounded server passport stands: the chain-time cache's lifetime. */
const BOUNDED_VERDICT_MS = 1000;

export class ServerPassportCheck {
  /**
   * The last verdict on a time-bounded record, and when it was reached: a bounded server passport would
   * otherwise cost every JWT-tier request a chain-time read (a promise, so no answer on the calling stack).
   */
  private boundedVerdict:
    | {
        readonly record: PassportRecord;
        readonly problem: ServerPassportProblem | undefined;
        readonly untilMs: number;
      }
    | undefined;

  /**
   * `trustedContracts`: the contracts whose passports log in (checked at start against the server
   * passport's). A ledger whose `contractId` is edited while the server runs moves the server passport
   * to an untrusted contract: every login was refused 401 SMART_CONTRACT_NOT_TRUSTED, which blames the
   * client, while health said healthy (a probe).
   */
  constructor(
    private readonly server: Pick<ServerIdentity, 'tokenId' | 'ownerId'>,
    private readonly chain: ChainReader,
    private readonly trustedContracts?: readonly string[],
  ) {}

  /**
   * The problem with the server passport now, or undefined; a chain outage throws ChainUnavailableError.
   * `reserved`: its chain reads may use the reads kept for logged-in holders (the JWT tier's re-check).
   */
  problem(
    options: { readonly reserved?: boolean } = {},
  ): ServerPassportProblem | undefined | Promise<ServerPassportProblem | undefined> {
    const read = <T>(start: () => T): T => (options.reserved ? withReservedChainReads(start) : start());
    const cached = canPeekPassport(this.chain) ? this.chain.peekPassport(this.server.tokenId) : undefined;
    if (cached !== undefined) return this.judge(cached, read);
    return read(() => this.chain.getPassport(this.server.tokenId)).then((passport) =>
      this.judge(passport, read),
    );
  }

  /**
   * Returns when the server passport is usable, on the calling stack when the answer is cached; otherwise
   * throws (or rejects with) the 503 login and the JWT tier answer: `reason` names the problem, or
   * `chain_unavailable`.
   */
  usable(options: { readonly reserved?: boolean } = {}): void | Promise<void> {
    let problem: ReturnType<ServerPassportCheck['problem']>;
    try {
      problem = this.problem(options);
    } catch (error) {
      return unavailable(error);
    }
    if (problem instanceof Promise) return problem.then(refuseIfProblem, unavailable);
    refuseIfProblem(problem);
  }

  /**
   * Login's check: a server passport that cannot be used is 503 `AUTH_SERVICE_UNAVAILABLE` (the spec's code
   * for an instance that cannot log anyone in; `reason` names the problem), a chain outage 503
   * `SERVICE_UNAVAILABLE` (`chain_unavailable`) as everywhere.
   */
  async assertUsable(): Promise<void> {
    let problem: ServerPassportProblem | undefined;
    try {
      problem = await this.problem();
    } catch (error) {
      unavailable(error);
    }
    if (problem !== undefined) throw new PassportError('AUTH_SERVICE_UNAVAILABLE', { reason: problem });
  }

  private judge(
    passport: PassportRecord | null,
    read: <T>(start: () => T) => T,
  ): ServerPassportProblem | undefined | Promise<ServerPassportProblem | undefined> {
    if (!passport) return 'server_passport_not_found';
    if (isPassportRevoked(passport)) return 'server_passport_revoked';
    if (passport.ownerId !== this.server.ownerId) return 'server_passport_transferred';
    if (this.trustedContracts && !isContractTrusted(passport, this.trustedContracts))
      return 'server_passport_contract_untrusted';
    if (!hasTimeBounds(passport)) return undefined;
    const last = this.boundedVerdict;
    if (last?.record === passport && performance.now() < last.untilMs) return last.problem;
    return read(() => this.chain.chainTimeMs()).then((chainTimeMs) => {
      const problem = isPassportLive(passport.metadata, chainTimeMs) ? undefined : 'server_passport_not_live';
      // A live verdict ends at not_after too: it adds nothing to the chain time's own age (else tokens
      // are honoured up to 2 s past not_after, where the holder check allows 1 s).
      const notAfterMs = passportNotAfterMs(passport.metadata);
      const liveForMs =
        problem === undefined && notAfterMs !== null ? Math.max(0, notAfterMs - chainTimeMs) : Infinity;
      this.boundedVerdict = {
        record: passport,
        problem,
        untilMs: performance.now() + Math.min(BOUNDED_VERDICT_MS, liveForMs),
      };
      return problem;
    });
  }
}

function refuseIfProblem(problem: ServerPassportProblem | undefined): void {
  if (problem !== undefined) throw new PassportError('SERVICE_UNAVAILABLE', { reason: problem });
}

/** A chain outage is not a verdict: 503 to retry; anything else goes on as it is. */
function unavailable(error: unknown): never {
  if (error instanceof ChainUnavailableError)
    throw new PassportError('SERVICE_UNAVAILABLE', { reason: 'chain_unavailable' }, undefined, {
      cause: error,
    });
  throw error;
}
