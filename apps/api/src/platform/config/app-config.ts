/**
 * The application's configuration: every environment variable of docs/protocol.md §9 (plus the concierge
 * trust anchor, HOLA skew and rate-limit settings), parsed and validated once at start. A bad value
 * throws `ConfigError`, whose message is one line naming the variable, so `main.ts` can print it and
 * stop. Everything else reads `AppConfig` (DI token `APP_CONFIG`), never `process.env`.
 */
import { isIP } from 'node:net';
import { DEFAULT_HOLA_MAX_AGE_MS, isServiceHostMarker } from '@passport/core/hola';
import { urlForMessage } from '@passport/core/codecs';
import { LOGIN_CHALLENGE_MAX_FUTURE_MS, normalizedBaseUrl } from '@passport/core/login';
import path from 'node:path';
import { LOGIN_MODES, type LoginMode } from '@passport/core/login';
import { ConfigError } from './config.error.js';
import {
  boolean,
  corsOriginList,
  httpUrl,
  integer,
  list,
  methodName,
  oneOf,
  read,
  type Env,
} from './config-env.readers.js';
import { conciergeConfig, type ConciergeConfig } from './concierge.config.js';
import { trustedProxyEntry } from './trusted-proxy.js';

export type ChainKind = 'ledger' | 'near';
export type StoreKind = 'sqlite' | 'memory' | 'redis';
export type { LoginMode };
export { ConfigError } from './config.error.js';
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface RateLimitConfig {
  /** Bucket capacity (burst) per client address. */
  readonly capacity: number;
  /** Tokens added per minute (sustained rate). */
  readonly refillPerMinute: number;
}

/** Login sessions and their tokens. */
export interface SessionConfig {
  /** SESSION_TTL_SECONDS [5200]: a session's lifetime from login (capped by the passport's not_after). */
  readonly ttlSeconds: number;
  /** JWT_RENEWAL [server]: `server` answers a token in its last 20 % with `New-Token`; `off` never renews. */
  readonly renewal: 'server' | 'off';
  /** SESSION_MAX_ENTRIES [100000]: sessions stored; when full of open ones, logins are refused (503). */
  readonly maxEntries: number;
  /** SESSION_MAX_PER_PASSPORT [100]: open sessions per passport; a login beyond closes its own oldest. */
  readonly maxOpenPerPassport: number;
}

/** Bounds on how long a client may take (all milliseconds; see docs/http.md). */
export interface HttpTimeoutsConfig {
  /** HTTP_REQUEST_TIMEOUT_MS [30000]: a request (headers and body) not arrived whole by then gets 408 and its socket closed. */
  readonly requestTimeoutMs: number;
  /** HTTP_HEADERS_TIMEOUT_MS [10000, at most the request timeout]: the same for the header block alone. */
  readonly headersTimeoutMs: number;
  /**
   * HTTP_KEEP_ALIVE_TIMEOUT_MS [72000, Fastify's]: an idle keep-alive socket between requests is closed
   * after this. Above the usual 60 s idle timeout of proxies and load balancers, so that the API never
   * closes a socket a proxy is about to reuse (and clients whose timers lag do not reuse a dead socket).
   */
  readonly keepAliveTimeoutMs: number;
  /** HTTP_CONNECTION_TIMEOUT_MS [300000]: a socket with no traffic at all for this long is destroyed. */
  readonly connectionTimeoutMs: number;
  /**
   * HTTP_SEND_TIMEOUT_MS [60000, nginx's send_timeout]: a socket whose client has read none of its pending answers for this
   * long is destroyed, and the answers held for it are freed (stalled-send.bound.ts).
   */
  readonly sendTimeoutMs: number;
}

/** Bounds of the single-use (replay) record store; a live record is never evicted to make room. */
export interface ReplayBoundsConfig {
  /** REPLAY_MAX_RECORDS [memory 100000, sqlite 1000000]: records held in all; beyond it new lines fail closed. */
  readonly maxRecords: number | undefined;
  /** REPLAY_MAX_PER_SENDER [10000]: unexpired records one sender token may hold; beyond it its lines are refused. */
  readonly maxPerSender: number;
}

export interface AppConfig {
  readonly port: number;
  readonly host: string;
  /** Public URL of this deployment, without a trailing slash. */
  readonly publicBaseUrl: string;
  /** host[:port] of the public URL (the HOST marker of HOLA lines, compared case-insensitively). */
  readonly serviceHost: string;
  readonly dataDir: string;
  readonly chain: ChainKind;
  readonly ledgerFile: string;
  readonly serverCredentialsFile: string;
  readonly familyCredentialsFile: string;
  readonly nearRpcUrl: string | undefined;
  readonly nearContractId: string | undefined;
  /**
   * NEAR_VIEW_TOKEN, NEAR_VIEW_TOKENS_FOR_OWNER, NEAR_VIEW_TOKENS: the contract's view-method names
   * (passport_token, passport_tokens_for_owner, passport_tokens by default), so that the service can
   * read a contract that names them otherwise (the production contract: rodit_token, …).
   */
  readonly nearViewMethods: NearViewMethodNames;
  readonly store: StoreKind;
  readonly redisUrl: string | undefined;
  /**
   * REDIS_COMMAND_TIMEOUT_MS [500]: how long one Redis command may take before it fails (STORE=redis).
   * A slow Redis then behaves like a down one within this bound: verify fails closed, JWT routes 503.
   */
  readonly redisCommandTimeoutMs: number;
  /**
   * REDIS_LOSS_HOLD_MS [the longest a used line or login challenge stays acceptable: 300 s plus the
   * larger of the login challenge's 30 s and HOLA_FUTURE_SKEW_MS, plus 1 s; 331000 by default]: after
   * Redis is found to have lost its data (a restart without persistence, a flush), how long replay
   * records are refused (verify and login 503), so that lines and challenges used before the loss are
   * stale first; 0 records again at once (STORE=redis).
   */
  readonly redisLossHoldMs: number;
  /**
   * SQLITE_LOSS_HOLD_MS [as REDIS_LOSS_HOLD_MS: 331000 by default]: after the SQLite database is found to
   * be a new one in place of the old (deleted, truncated, replaced; SqliteStoreHistory), how long replay
   * records are refused (verify and login 503); 0 records again at once (STORE=sqlite).
   */
  readonly sqliteLossHoldMs: number;
  readonly loginMode: LoginMode;
  /** LOGIN_ACCEPT_FOREIGN: admit same-family passports issued for another API (federated login; partner/promiscuous modes). */
  readonly loginAcceptForeign: boolean;
  /** Contract ids whose passports are trusted; empty means "the configured contract" (resolved by the chain module). */
  readonly trustedContracts: readonly string[];
  /** CIDR list of proxies whose X-Forwarded-For is honoured; empty means none. */
  readonly trustedProxies: readonly string[];
  /**
   * CORS_ORIGINS [none]: browser origins (`https://app.example`, comma-separated) allowed to call the
   * API from their pages, or `*` for any. Empty: no CORS headers, so only pages served from the API's
   * own origin can call it. Tokens travel in `Authorization`, never in cookies, so no credentials mode.
   */
  readonly corsOrigins: readonly string[] | '*';
  readonly webhookTestEnabled: boolean;
  /**
   * WEBHOOK_TLS_SKIP_VERIFY [false]: development only (the specification's setting). https webhooks go
   * out without checking the receiver's certificate (a receiver with a self-signed one); the start logs a
   * warning. Never set it in production: anyone on the path could read and answer the deliveries.
   */
  readonly webhookTlsSkipVerify: boolean;
  /**
   * WEBHOOK_ALLOW_LOOPBACK [false]: test-only. Lets webhooks go to loopback addresses (a receiver on
   * 127.0.0.1 in end-to-end tests). Private, link-local and metadata addresses stay refused. Never
   * set it in production.
   */
  readonly webhookAllowLoopback: boolean;
  readonly mcpMaxSessions: number;
  /**
   * MCP_MAX_SESSIONS_PER_ADDRESS [a tenth of MCP_MAX_SESSIONS, at least 1]: sessions one client
   * address may hold at once, so one address cannot take every slot and lock the others out.
   */
  readonly mcpMaxSessionsPerAddress: number;
  readonly mcpSessionTtlMs: number;
  /**
   * MCP_SESSION_RECLAIM_IDLE_MS [60000]: when the session cap is full, an initialize takes the slot of
   * the least recently used session idle at least this long (that session ends: its client's next
   * request gets 404 and it initializes again, as MCP asks of clients); with its address's cap full, that
   * of the address's own least recently used session idle as long. A slot is never taken from a session
   * used more recently, nor from another address for an address at its cap.
   */
  readonly mcpSessionReclaimIdleMs: number;
  readonly logLevel: LogLevel;
  /** Widens the lower freshness bound of HOLA lines for deployments with skewed peers (docs/protocol.md §2). */
  readonly holaFutureSkewMs: number;
  /**
   * HOLA_VERIFY_THREADPOOL [true]: HOLA signatures are checked on libuv's thread pool, so the event
   * loop serves other requests meanwhile (more verify throughput with a spare core, ~40 µs more latency).
   * HOLA lines only: a login's signature check and JWT signing always run on the pool.
   */
  readonly holaVerifyThreadPool: boolean;
  readonly rateLimit: RateLimitConfig;
  readonly sessions: SessionConfig;
  readonly httpTimeouts: HttpTimeoutsConfig;
  /**
   * HTTP_MAX_CONNECTIONS_PER_ADDRESS [1000; 0: no bound]: connections one client address (an IPv6 client
   * by its /64) may hold open at once; peers in TRUSTED_PROXIES are not bounded. Beyond it a new
   * connection is answered 429 and closed before its request is read.
   */
  readonly httpMaxConnectionsPerAddress: number;
  readonly replay: ReplayBoundsConfig;
  readonly concierge: ConciergeConfig;
  /**
   * METRICS_TOKEN [unset]: the static bearer a Prometheus scraper sends to `GET /metrics`. Unset, that
   * route does not exist (404 like any unknown path); `GET /api/metrics` stays for privileged passports.
   */
  readonly metricsToken: string | undefined;
  /**
   * DRAIN_DELAY_MS [0]: after SIGTERM, how long the instance keeps accepting connections while
   * `GET /health/ready` already answers 503, so a balancer or orchestrator stops sending new traffic.
   */
  readonly drainDelayMs: number;
  /** DRAIN_TIMEOUT_MS [10000]: how long in-flight requests may take to finish once accepting stopped. */
  readonly drainTimeoutMs: number;
}

export interface NearViewMethodNames {
  readonly token: string;
  readonly tokensForOwner: string;
  readonly tokens: string;
}

/**
 * A host name: what `HOST` may hold when it is not an IP address. RFC 1123 labels, and underscores,
 * which Docker's and Compose's service names may hold and their DNS resolves.
 */
const HOST_NAME =
  /^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*\.?$/i;

/** The HTTP timeouts, each bounded; the header timeout never above the request timeout (Node refuses it). */
function httpTimeouts(env: Env): HttpTimeoutsConfig {
  const requestTimeoutMs = integer(env, 'HTTP_REQUEST_TIMEOUT_MS', 30_000, 100, 3_600_000);
  // Node refuses a header timeout above the request timeout.
  const headersTimeoutMs = integer(
    env,
    'HTTP_HEADERS_TIMEOUT_MS',
    Math.min(10_000, requestTimeoutMs),
    100,
    3_600_000,
  );
  if (headersTimeoutMs > requestTimeoutMs)
    throw new ConfigError(
      'HTTP_HEADERS_TIMEOUT_MS',
      `must not exceed HTTP_REQUEST_TIMEOUT_MS (${requestTimeoutMs})`,
    );
  return {
    requestTimeoutMs,
    headersTimeoutMs,
    keepAliveTimeoutMs: integer(env, 'HTTP_KEEP_ALIVE_TIMEOUT_MS', 72_000, 100, 3_600_000),
    connectionTimeoutMs: integer(env, 'HTTP_CONNECTION_TIMEOUT_MS', 300_000, 1_000, 86_400_000),
    sendTimeoutMs: integer(env, 'HTTP_SEND_TIMEOUT_MS', 60_000, 1_000, 3_600_000),
  };
}

/**
 * Builds the configuration from an environment (normally `process.env`). Pure apart from
 * resolving relative paths against the current directory.
 */
export function loadConfig(env: Env): AppConfig {
  const port = integer(env, 'PORT', 3000, 0, 65535);
  const host = read(env, 'HOST') ?? '0.0.0.0';
  if (isIP(host) === 0 && !HOST_NAME.test(host))
    throw new ConfigError('HOST', `must be an IP address or a host name (got "${host}")`);

  // PORT=0 listens on any free port, which the default public URL (and the ledger) would call :0.
  if (port === 0 && read(env, 'PUBLIC_BASE_URL') === undefined)
    throw new ConfigError('PORT', 'may be 0 (any free port) only when PUBLIC_BASE_URL is set');
  const publicRaw = read(env, 'PUBLIC_BASE_URL') ?? `http://localhost:${port}`;
  // Read as the CLI reads --public-url (a bare '?' or '#' included: no base URL to append to).
  const publicBaseUrl = normalizedBaseUrl(publicRaw);
  if (publicBaseUrl === null)
    throw new ConfigError(
      'PUBLIC_BASE_URL',
      `must be an absolute http(s) URL without credentials, query or fragment (got "${urlForMessage(publicRaw)}")`,
    );
  const publicUrl = new URL(publicBaseUrl);

  const serviceHostRaw = read(env, 'SERVICE_HOST');
  const serviceHost = (serviceHostRaw ?? publicUrl.host).toLowerCase();
  if (!isServiceHostMarker(serviceHost)) {
    // Unset, the marker comes from PUBLIC_BASE_URL: an IPv6 host there is no HOLA host marker (protocol §2).
    if (serviceHostRaw === undefined)
      throw new ConfigError(
        'PUBLIC_BASE_URL',
        `has a host that cannot be a HOLA host marker (host[:port] of letters, digits, dots and hyphens; got "${serviceHost}"): set SERVICE_HOST`,
      );
    throw new ConfigError(
      'SERVICE_HOST',
      `must be host[:port]: dot-separated labels of letters, digits and inner hyphens, a port 1-65535 (got "${serviceHost}")`,
    );
  }

  const dataDir = path.resolve(read(env, 'DATA_DIR') ?? './data');
  const chain = oneOf<ChainKind>(env, 'CHAIN', ['ledger', 'near'], 'ledger');
  const ledgerFile = path.resolve(read(env, 'LEDGER_FILE') ?? path.join(dataDir, 'ledger.json'));
  const serverCredentialsFile = path.resolve(
    read(env, 'SERVER_CREDENTIALS_FILE') ?? path.join(dataDir, 'keys', 'server.json'),
  );
  const familyCredentialsFile = path.resolve(
    read(env, 'FAMILY_CREDENTIALS_FILE') ?? path.join(dataDir, 'keys', 'family-root.json'),
  );

  const nearRpcRaw = read(env, 'NEAR_RPC_URL');
  const nearRpcUrl = nearRpcRaw === undefined ? undefined : httpUrl('NEAR_RPC_URL', nearRpcRaw).toString();
  const nearContractId = read(env, 'NEAR_CONTRACT_ID');
  if (nearContractId !== undefined && !/^[a-z0-9._-]{2,64}$/.test(nearContractId)) {
    throw new ConfigError('NEAR_CONTRACT_ID', `must be a NEAR account id (got "${nearContractId}")`);
  }
  if (chain === 'near' && nearRpcUrl === undefined)
    throw new ConfigError('NEAR_RPC_URL', 'is required when CHAIN=near');
  if (chain === 'near' && nearContractId === undefined) {
    throw new ConfigError('NEAR_CONTRACT_ID', 'is required when CHAIN=near');
  }

  const nearViewMethods: NearViewMethodNames = {
    token: methodName(env, 'NEAR_VIEW_TOKEN', 'passport_token'),
    tokensForOwner: methodName(env, 'NEAR_VIEW_TOKENS_FOR_OWNER', 'passport_tokens_for_owner'),
    tokens: methodName(env, 'NEAR_VIEW_TOKENS', 'passport_tokens'),
  };

  const store = oneOf<StoreKind>(env, 'STORE', ['sqlite', 'memory', 'redis'], 'sqlite');
  const redisRaw = read(env, 'REDIS_URL');
  let redisUrl: string | undefined;
  if (redisRaw !== undefined) {
    let url: URL;
    try {
      url = new URL(redisRaw);
    } catch {
      throw new ConfigError(
        'REDIS_URL',
        'must be a redis:// or rediss:// URL (a user or password holding @ : / # ? is percent-encoded: %40 %3A %2F %23 %3F)',
      );
    }
    if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
      throw new ConfigError('REDIS_URL', 'must be a redis:// or rediss:// URL');
    }
    // The client decodes the user and password (`%40` is "@"): a bare "%" stopped the start later with
    // only "URI malformed", naming no variable.
    try {
      decodeURIComponent(url.username);
      decodeURIComponent(url.password);
    } catch {
      throw new ConfigError(
        'REDIS_URL',
        'the user or password holds a "%" that starts no %XX escape: percent-encode it (% is %25, @ is %40, : is %3A, / is %2F, # is %23)',
      );
    }
    if (!/^\/?(\d{1,6})?$/.test(url.pathname)) {
      throw new ConfigError(
        'REDIS_URL',
        `the database index after the host must be a whole number, e.g. redis://host:6379/0 (got "${url.pathname.slice(1, 40)}")`,
      );
    }
    redisUrl = redisRaw;
  }
  if (store === 'redis' && redisUrl === undefined)
    throw new ConfigError('REDIS_URL', 'is required when STORE=redis');

  const mcpMaxSessions = integer(env, 'MCP_MAX_SESSIONS', 1000, 1, 1_000_000);
  const mcpMaxSessionsPerAddress = integer(
    env,
    'MCP_MAX_SESSIONS_PER_ADDRESS',
    Math.max(1, Math.floor(mcpMaxSessions / 10)),
    1,
    mcpMaxSessions,
  );

  const loginMode = oneOf<LoginMode>(env, 'LOGIN_MODE', LOGIN_MODES, 'partner');
  // Unset: the configured contract (NEAR_CONTRACT_ID; for the ledger, the chain module uses the ledger's own).
  const trustedContracts = list(env, 'TRUSTED_CONTRACTS');
  if (trustedContracts.length === 0 && nearContractId !== undefined) trustedContracts.push(nearContractId);
  for (const contract of trustedContracts) {
    if (!/^[a-z0-9._-]{2,64}$/.test(contract)) {
      throw new ConfigError(
        'TRUSTED_CONTRACTS',
        `must be a comma-separated list of contract ids (got "${contract}")`,
      );
    }
  }
  const trustedProxies = list(env, 'TRUSTED_PROXIES').map((entry) =>
    trustedProxyEntry('TRUSTED_PROXIES', entry),
  );
  const corsOrigins = corsOriginList(list(env, 'CORS_ORIGINS'));

  const logLevel = oneOf<LogLevel>(
    env,
    'LOG_LEVEL',
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
    'info',
  );

  const concierge = conciergeConfig(env, publicBaseUrl);

  // A guessable scrape token would expose the operators' figures to anyone: ask for real entropy.
  const metricsToken = read(env, 'METRICS_TOKEN');
  if (metricsToken !== undefined && !/^[\x21-\x7e]{32,512}$/.test(metricsToken))
    throw new ConfigError('METRICS_TOKEN', 'must be 32 to 512 printable ASCII characters without spaces');

  return {
    port,
    host,
    publicBaseUrl,
    serviceHost,
    dataDir,
    chain,
    ledgerFile,
    serverCredentialsFile,
    familyCredentialsFile,
    nearRpcUrl,
    nearContractId,
    nearViewMethods,
    store,
    redisUrl,
    redisCommandTimeoutMs: integer(env, 'REDIS_COMMAND_TIMEOUT_MS', 500, 10, 60_000),
    redisLossHoldMs: integer(env, 'REDIS_LOSS_HOLD_MS', defaultLossHoldMs(env), 0, 86_400_000),
    sqliteLossHoldMs: integer(env, 'SQLITE_LOSS_HOLD_MS', defaultLossHoldMs(env), 0, 86_400_000),
    loginMode,
    loginAcceptForeign: boolean(env, 'LOGIN_ACCEPT_FOREIGN', false),
    trustedContracts,
    trustedProxies,
    corsOrigins,
    webhookTestEnabled: boolean(env, 'WEBHOOK_TEST_ENABLED', false),
    webhookAllowLoopback: boolean(env, 'WEBHOOK_ALLOW_LOOPBACK', false),
    webhookTlsSkipVerify: boolean(env, 'WEBHOOK_TLS_SKIP_VERIFY', false),
    mcpMaxSessions,
    mcpMaxSessionsPerAddress,
    mcpSessionTtlMs: integer(env, 'MCP_SESSION_TTL_MS', 1_800_000, 1000, 86_400_000),
    mcpSessionReclaimIdleMs: integer(env, 'MCP_SESSION_RECLAIM_IDLE_MS', 60_000, 1000, 86_400_000),
    logLevel,
    holaFutureSkewMs: integer(env, 'HOLA_FUTURE_SKEW_MS', 0, 0, 300_000),
    holaVerifyThreadPool: boolean(env, 'HOLA_VERIFY_THREADPOOL', true),
    rateLimit: {
      capacity: integer(env, 'RATE_LIMIT_CAPACITY', 6101, 1, 10_000_000),
      refillPerMinute: integer(env, 'RATE_LIMIT_REFILL_PER_MINUTE', 1101, 1, 10_000_000),
    },
    sessions: {
      ttlSeconds: integer(env, 'SESSION_TTL_SECONDS', 5200, 1, 31_536_000),
      renewal: oneOf<'server' | 'off'>(env, 'JWT_RENEWAL', ['server', 'off'], 'server'),
      maxEntries: integer(env, 'SESSION_MAX_ENTRIES', 100_000, 1, 100_000_000),
      maxOpenPerPassport: integer(env, 'SESSION_MAX_PER_PASSPORT', 100, 1, 1_000_000),
    },
    httpTimeouts: httpTimeouts(env),
    replay: {
      maxRecords:
        read(env, 'REPLAY_MAX_RECORDS') === undefined
          ? undefined
          : integer(env, 'REPLAY_MAX_RECORDS', 0, 1, 100_000_000),
      maxPerSender: integer(env, 'REPLAY_MAX_PER_SENDER', 10_000, 1, 100_000_000),
    },
    metricsToken,
    httpMaxConnectionsPerAddress: integer(env, 'HTTP_MAX_CONNECTIONS_PER_ADDRESS', 1000, 0, 1_000_000),
    drainDelayMs: integer(env, 'DRAIN_DELAY_MS', 0, 0, 300_000),
    drainTimeoutMs: integer(env, 'DRAIN_TIMEOUT_MS', 10_000, 0, 600_000),
    concierge,
  };
}

/**
 * How long a HOLA line (default window) or a login challenge used just before a loss of Redis's data can
 * still be accepted: stamped up to the allowed future skew ahead (HOLA_FUTURE_SKEW_MS, or the login
 * challenge's 30 s), then fresh for 300 s; plus a second.
 */
function defaultLossHoldMs(env: Env): number {
  const holaSkew = Number(env.HOLA_FUTURE_SKEW_MS);
  const skew = Math.max(
    LOGIN_CHALLENGE_MAX_FUTURE_MS,
    Number.isFinite(holaSkew) ? Math.min(holaSkew, 300_000) : 0,
  );
  return DEFAULT_HOLA_MAX_AGE_MS + skew + 1000;
}
