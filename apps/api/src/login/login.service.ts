/**
 * Login (docs/protocol.md §3): request validation (400s), credential verification (401s, in order) by the
 * core, then the EdDSA JWT and its session. The used challenge and the session are written as one step
 * (LoginRecorder: one SQLite transaction), before the token is returned, so a token never exists
 * without a session that can be closed, and a session that cannot be stored leaves the challenge unused.
 */
import { Inject, Injectable, Optional } from '@nestjs/common';
import {
  ChainUnavailableError,
  challengeAlreadyUsed,
  FamilyVerdictCache,
  PassportError,
  buildJwtClaims,
  createLoginVerifier,
  validateLoginRequest,
  type ChainReader,
  type Clock,
  type LoginVerifier,
  type AsyncSignatureVerifier,
  type ReplayStore,
  type SignatureVerifier,
  type Signer,
  type PassportJwtClaims,
} from '@passport/core';
import { MAX_LOGIN_TOKEN_BYTES, sessionTokenBytes } from '@passport/core/login';
import { type CachingChainReader } from '@passport/adapters/caching';
import {
  LoginRecordFailure,
  retryAfterSecondsOfPause,
  SessionCapacityError,
  type LoginChallengeRecord,
  type LoginRecorder,
  type SessionRecord,
} from '@passport/core/ports';
import { type AppConfig } from '../platform/config/app-config.js';
import { ServerPassportCheck } from '../platform/chain/server-passport.check.js';
import {
  APP_CONFIG,
  ASYNC_SIGNATURE_VERIFIER,
  CHAIN_CACHE,
  CHAIN_READER,
  CLOCK,
  LOGIN_RECORDER,
  REPLAY_STORE,
  SERVER_IDENTITY,
  SIGNATURE_VERIFIER,
  TRUSTED_CONTRACTS,
} from '../platform/infrastructure/di-tokens.js';
import { pooledRandomBytes } from '../platform/infrastructure/pooled-random.js';
import { type ServerIdentity } from '../platform/infrastructure/server-identity.js';
import { EddsaJwtCodec } from '../session/eddsa-jwt.codec.js';

export interface LoginOutcome {
  readonly jwtToken: string;
  readonly tokenId: string;
  readonly sessionId: string;
}

/**
 * The server key's signer, remembering its last signature: every token's `passport_idsignature` signs
 * the server's token id and the token's `iat` second, so the logins of one second sign one message.
 * Ed25519 signatures are deterministic, so the remembered one is the one signing again would give.
 */
export function lastSignatureMemo(signer: Signer): Signer {
  let lastMessage: Uint8Array | null = null;
  let lastSignature: Uint8Array = new Uint8Array(0);
  return {
    // The signer's own copy on each read, so no array is shared with every reader.
    get publicKey() {
      return signer.publicKey;
    },
    sign(message: Uint8Array): Uint8Array {
      if (lastMessage === null || !sameBytes(lastMessage, message)) {
        lastSignature = signer.sign(message);
        lastMessage = Uint8Array.from(message);
      }
      return Uint8Array.from(lastSignature);
    },
  };
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

@Injectable()
export class LoginService {
  private readonly verifier: LoginVerifier;
  private readonly idSigner: Signer;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(SERVER_IDENTITY) private readonly server: ServerIdentity,
    @Inject(CHAIN_READER) chain: ChainReader,
    @Inject(SIGNATURE_VERIFIER) signatures: SignatureVerifier,
    @Inject(ASYNC_SIGNATURE_VERIFIER) threadPoolSignatures: AsyncSignatureVerifier,
    @Inject(REPLAY_STORE) challenges: ReplayStore,
    @Inject(LOGIN_RECORDER) private readonly records: LoginRecorder,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(TRUSTED_CONTRACTS) trustedContracts: readonly string[],
    private readonly codec: EddsaJwtCodec,
    private readonly serverPassport: ServerPassportCheck,
    @Optional() @Inject(CHAIN_CACHE) chainCache?: Pick<CachingChainReader, 'ttlMs'>,
  ) {
    this.idSigner = lastSignatureMemo(server.signer);
    this.verifier = createLoginVerifier({
      chain,
      verifier: signatures,
      // The login signature's curve work runs on libuv's thread pool: the event loop serves other
      // requests meanwhile, so a server with a spare core logs in more agents per second.
      loginSignatureVerifier: threadPoolSignatures,
      // Family verdicts are reused no longer than the chain cache keeps the records they were read
      // from; an uncached chain reader gets no reuse.
      familyVerifier: new FamilyVerdictCache(signatures, {
        ttlMs: chainCache?.ttlMs ?? 0,
        clock,
      }),
      challenges,
      clock,
      server: {
        serviceProviderId: server.serviceProviderId,
        tokenId: server.tokenId,
        loginMode: config.loginMode,
        trustedContracts,
        publicBaseUrl: config.publicBaseUrl,
        acceptForeign: config.loginAcceptForeign,
      },
    });
  }

  async login(body: unknown): Promise<LoginOutcome> {
    const request = validateLoginRequest(body);
    const verification = await this.verifier.check(request).catch(async (error: unknown) => {
      // A chain outage is not bad credentials: answer 503 so the client retries with the same key.
      if (error instanceof ChainUnavailableError)
        throw new PassportError('SERVICE_UNAVAILABLE', { reason: 'chain_unavailable' }, undefined, {
          cause: error,
        });
      // The holder's contract untrusted because the server's own is (a ledger's contractId edited while
      // the server runs): the server's fault, said as such (503 with the reason), not the client's (a probe).
      if (error instanceof PassportError && error.code === 'SMART_CONTRACT_NOT_TRUSTED')
        await this.serverPassport.assertUsable();
      throw error;
    });
    // A token naming a server passport that is revoked, transferred or gone on chain is not one to issue
    // (the passport read at start may have changed since). Checked before the challenge is used.
    await this.serverPassport.assertUsable();
    const nowMs = this.clock.nowMs();
    const built = buildJwtClaims({
      server: {
        serviceProviderId: this.server.serviceProviderId,
        tokenId: this.server.tokenId,
        ownerId: this.server.ownerId,
        publicBaseUrl: this.config.publicBaseUrl,
        signer: this.idSigner,
      },
      passport: verification.passport,
      federation: verification.federation,
      nowMs,
      sessionTtlSeconds: this.config.sessions.ttlSeconds,
      // The session id's and jti's random bits from the pooled CSPRNG buffer (one system call per 4 KiB).
      random: pooledRandomBytes,
    });
    // Liveness was judged at the chain's time (cached up to 1 s), the claims at this clock's: a passport
    // whose not_after falls between the two would get a token expired at issue and a dead session.
    if (built.claims.exp <= built.claims.iat)
      throw new PassportError('PASSPORT_NOT_LIVE', { failureReason: 'PASSPORT_NOT_LIVE' });
    this.assertTokenFits(built.claims);
    await this.recordLogin(verification.challenge, {
      sessionId: built.sessionId,
      tokenId: verification.tokenId,
      ownerId: verification.ownerId,
      jti: built.jti,
      createdAtMs: nowMs,
      expiresAtMs: built.sessionExpiresAtMs,
      closedAtMs: null,
      closeReason: null,
      federatedFrom: verification.federation.homeUrl,
    });
    const jwtToken = await this.codec.sign({ ...built.claims });
    return { jwtToken, tokenId: verification.tokenId, sessionId: built.sessionId };
  }

  /**
   * The claims copy metadata fields whole (webhook_url, permissioned_routes, the CIDR and country lists):
   * a token over MAX_LOGIN_TOKEN_BYTES would not fit the request headers it must travel in (16 KiB with the
   * rest), and every use of it would be refused (a 24 KB token gets 400 REQUEST_HEADER_TOO_LARGE on
   * every JWT route). Judged on the claims (sized as the session's longest token, a renewal's) before
   * the challenge and the session are written.
   */
  private assertTokenFits(claims: PassportJwtClaims): void {
    const bytes = sessionTokenBytes(claims);
    if (bytes > MAX_LOGIN_TOKEN_BYTES)
      throw new PassportError('PASSPORT_METADATA_TOO_LARGE', {
        failureReason: 'PASSPORT_METADATA_TOO_LARGE',
        tokenBytes: bytes,
        maxTokenBytes: MAX_LOGIN_TOKEN_BYTES,
      });
  }

  /**
   * The used challenge and the session, as one step. A used challenge is refused (401); a full session
   * store refuses the login (503 with Retry-After) rather than evicting anyone's session; a store that
   * is down or slow is a 503 to retry, not a bad login.
   */
  private async recordLogin(challenge: LoginChallengeRecord, session: SessionRecord): Promise<void> {
    let recorded: boolean;
    try {
      recorded = (await this.records.recordLogin(challenge, session)).recorded;
    } catch (error) {
      if (error instanceof PassportError) throw error;
      if (error instanceof SessionCapacityError) {
        throw new PassportError('SESSION_CAPACITY_REACHED', {
          maxSessions: error.maxEntries,
          retryAfterSeconds: 60,
        });
      }
      const challengePart = error instanceof LoginRecordFailure && error.part === 'challenge';
      const retryAfterSeconds = challengePart ? retryAfterSecondsOfPause(error.cause) : undefined;
      throw new PassportError(
        'SERVICE_UNAVAILABLE',
        {
          reason: challengePart ? 'replay_store_unavailable' : 'session_store_unavailable',
          ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
        },
        undefined,
        { cause: error },
      );
    }
    if (!recorded) throw challengeAlreadyUsed();
  }
}
