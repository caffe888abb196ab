/**
 * Whether the server's own passport, read at start, is still usable: found, unrevoked, live, and owned
 * by the account whose key this process signs with. A probe revoked (and transferred) the server passport
 * on chain: the running server went on issuing JWTs that named it, since it read its passport only at
 * start. Login now refuses to issue tokens while the passport is unusable (503), and health says why.
 * Reads go through the cached chain reader (≤ 5 s old), on the calling stack when the answer is cached.
 */
import { ChainUnavailableError, PassportError, type ChainReader, type PassportRecord } from '@passport/core';
import { hasPassportTimeBounds, isPassportLive, isPassportRevoked } from '@passport/core/passport';
import { canPeekPassport } from '@passport/core/ports';
import { type ServerIdentity } from '../infrastructure/server-identity.js';

export type ServerPassportProblem =
  | 'server_passport_not_found'
  | 'server_passport_revoked'
  | 'server_passport_transferred'
  | 'server_passport_not_live';

export class ServerPassportCheck {
  constructor(
    private readonly server: Pick<ServerIdentity, 'tokenId' | 'ownerId'>,
    private readonly chain: ChainReader,
  ) {}

  /** The problem with the server passport now, or undefined; a chain outage throws ChainUnavailableError. */
  problem(): ServerPassportProblem | undefined | Promise<ServerPassportProblem | undefined> {
    const cached = canPeekPassport(this.chain) ? this.chain.peekPassport(this.server.tokenId) : undefined;
    if (cached !== undefined) return this.judge(cached);
    return this.chain.getPassport(this.server.tokenId).then((passport) => this.judge(passport));
  }

  /** Resolves when the server passport is usable; otherwise throws the 503 login answers. */
  async assertUsable(): Promise<void> {
    let problem: ServerPassportProblem | undefined;
    try {
      problem = await this.problem();
    } catch (error) {
      if (error instanceof ChainUnavailableError)
        throw new PassportError('SERVICE_UNAVAILABLE', { reason: 'chain_unavailable' });
      throw error;
    }
    if (problem !== undefined) throw new PassportError('SERVICE_UNAVAILABLE', { reason: problem });
  }

  private judge(
    passport: PassportRecord | null,
  ): ServerPassportProblem | undefined | Promise<ServerPassportProblem | undefined> {
    if (!passport) return 'server_passport_not_found';
    if (isPassportRevoked(passport)) return 'server_passport_revoked';
    if (passport.ownerId !== this.server.ownerId) return 'server_passport_transferred';
    if (!hasPassportTimeBounds(passport.metadata)) return undefined;
    return this.chain
      .chainTimeMs()
      .then((chainTimeMs) =>
        isPassportLive(passport.metadata, chainTimeMs) ? undefined : 'server_passport_not_live',
      );
  }
}
