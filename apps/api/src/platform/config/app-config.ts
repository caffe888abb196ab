/**
 * The application's configuration: every environment variable of docs/protocol.md §9 (plus the concierge
 * trust anchor, HOLA skew and rate-limit settings), parsed and validated once at start. A bad value
 * throws `ConfigError`, whose message is one line naming the variable, so `main.ts` can print it and
 * stop. Everything else reads `AppConfig` (DI token `APP_CONFIG`), never `process.env`.
 */
import { isIP } from 'node:net';
import { DEFAULT_HOLA_MAX_AGE_MS, isServiceHostMarker } from '@passport/core/hola';
import { LOGIN_CHALLENGE_MAX_FUTURE_MS, normalizedBaseUrl } from '@passport/core/login';
import path from 'node:path';
import { LOGIN_MODES, type LoginMode } from '@passport/core/login';
import ipaddr from 'ipaddr.js';
import { isProxyAddrEntry } from './trusted-proxy.js';

export type ChainKind = 'ledger' | 'near';
export type StoreKind = 'sqlite' | 'memory' | 'redis';
export type { LoginMode };
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

/**
 * Concierge trust anchor fields. Every one has a default derived from PUBLIC_BASE_URL (so a fresh
 * start answers `GET /api/concierge/trust-anchor`), a configured value overrides it, and a configured
 * value that is invalid stops the start like any other setting: the endpoint never answers 500 for
 * configuration.
 */
export interface ConciergeConfig {
  readonly displayName: string;
  readonly host: string;
  readonly verifyHost: string;
  readonly supportEmail: string;
  readonly a2aRegistryId: string;
  readonly a2aRegistryUrl: string;
  readonly agentCardUrl: string;
  readonly a2aEndpoint: string;
  /** Raw JSON text of the `contactUris` object. */
  readonly contactUrisJson: string | undefined;
  readonly verifyCli: string;
  readonly lobbyTokenId: string | undefined;
}

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
   * request gets 404 and it initializes again, as MCP asks of clients). A slot is never taken from a
   * session used more recently.
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

/** An e-mail address as the trust anchor publishes it (`support@localhost` included, when configured so). */
export const CONCIERGE_EMAIL_PATTERN = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)*$/;

/** A configuration value that cannot be used; `message` is one line naming the variable. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`Invalid configuration: ${variable} ${problem}`);
  }
}

type Env = Readonly<Record<string, string | undefined>>;

/**
 * A host name: what `HOST` may hold when it is not an IP address. RFC 1123 labels, and underscores,
 * which Docker's and Compose's service names may hold and their DNS resolves.
 */
const HOST_NAME =
  /^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*\.?$/i;

/** Reads a variable, treating empty and whitespace-only values as unset. */
function read(env: Env, name: string): string | undefined {
  const value = env[name];
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw))
    throw new ConfigError(name, `must be an integer from ${min} to ${max} (got "${raw}")`);
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new ConfigError(name, `must be an integer from ${min} to ${max} (got "${raw}")`);
  }
  return value;
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  const lower = raw.toLowerCase();
  if (!(allowed as readonly string[]).includes(lower)) {
    throw new ConfigError(name, `must be one of ${allowed.join(', ')} (got "${raw}")`);
  }
  return lower as T;
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  const lower = raw.toLowerCase();
  if (lower === 'true' || lower === '1') return true;
  if (lower === 'false' || lower === '0') return false;
  throw new ConfigError(name, `must be true or false (got "${raw}")`);
}

function httpUrl(name: string, raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, `must be an absolute http(s) URL (got "${raw}")`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(name, `must be an absolute http(s) URL (got "${raw}")`);
  }
  if (url.username || url.password) throw new ConfigError(name, 'must not contain credentials');
  return url;
}

/** A contract method name: what NEAR accepts as one (letters, digits, `_`), at most 256 characters. */
function methodName(env: Env, name: string, fallback: string): string {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,255}$/.test(raw))
    throw new ConfigError(name, `must be a contract method name: letters, digits and _ (got "${raw}")`);
  return raw;
}

/** `*` alone, or origins written as the URL standard serialises them (`https://app.example[:port]`). */
function corsOriginList(entries: string[]): readonly string[] | '*' {
  if (entries.length === 1 && entries[0] === '*') return '*';
  return entries.map((entry) => {
    let origin: string | undefined;
    try {
      const url = new URL(entry);
      if (url.protocol === 'http:' || url.protocol === 'https:') origin = url.origin;
    } catch {
      origin = undefined;
    }
    if (origin !== entry.toLowerCase().replace(/\/$/, '') || origin === undefined)
      throw new ConfigError(
        'CORS_ORIGINS',
        `must be * or a comma-separated list of origins written as a browser sends them: http(s)://host[:port], no path, the default port left out, an international host in punycode${origin ? ` (got "${entry}", meaning "${origin}")` : ` (got "${entry}")`}`,
      );
    return origin;
  });
}

function list(env: Env, name: string): string[] {
  const raw = read(env, name);
  if (raw === undefined) return [];
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const IPV6 = /^[0-9a-fA-F:.]+$/;

/**
 * The widest range a TRUSTED_PROXIES entry may name: /8 for IPv4 (10.0.0.0/8), /32 for IPv6, and /104
 * for IPv4-mapped IPv6 (the /8 of IPv4). A wider one trusts much of the Internet to say who the client
 * is: two /1 ranges, or `::ffff:0:0/96` (proxy-addr compares an IPv4 peer with a mapped range in its
 * mapped form, so that range holds every IPv4 client), trust every IPv4 address as a /0 would.
 */
const WIDEST_PROXY_PREFIX = { v4: 8, v6: 32, mapped: 104, uniqueLocal: 7, linkLocal: 10 } as const;

/**
 * The widest prefix allowed for a range at `address` (see WIDEST_PROXY_PREFIX), in any notation. The
 * private IPv6 blocks (fc00::/7, fe80::/10) may be named whole: nobody on the Internet sends from them.
 */
function widestProxyPrefix(address: string): number {
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return WIDEST_PROXY_PREFIX.v4;
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return WIDEST_PROXY_PREFIX.mapped;
  const range = v6.range();
  if (range === 'uniqueLocal' || range === 'linkLocal') return WIDEST_PROXY_PREFIX[range];
  return WIDEST_PROXY_PREFIX.v6;
}

/** Validates one CIDR (or bare address) entry of TRUSTED_PROXIES. */
function cidr(name: string, entry: string): string {
  const [address, prefix, extra] = entry.split('/');
  const isV4 = IPV4.test(address);
  const isV6 = !isV4 && address.includes(':') && IPV6.test(address);
  const maxPrefix = isV4 ? 32 : 128;
  const prefixOk = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= maxPrefix);
  if ((!isV4 && !isV6) || !prefixOk || extra !== undefined || !isProxyAddrEntry(entry)) {
    throw new ConfigError(
      name,
      `must be a comma-separated list of IP addresses or CIDR ranges (got "${entry}")`,
    );
  }
  const widest = prefix === undefined ? 0 : widestProxyPrefix(address);
  if (prefix !== undefined && Number(prefix) < widest) {
    throw new ConfigError(
      name,
      `"${entry}" trusts too wide a range to name the client (at most /${widest} for this kind of address)`,
    );
  }
  return entry;
}

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
      `must be an absolute http(s) URL without credentials, query or fragment (got "${publicRaw}")`,
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
      throw new ConfigError('REDIS_URL', 'must be a redis:// or rediss:// URL');
    }
    if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
      throw new ConfigError('REDIS_URL', 'must be a redis:// or rediss:// URL');
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
  const trustedProxies = list(env, 'TRUSTED_PROXIES').map((entry) => cidr('TRUSTED_PROXIES', entry));
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
    drainDelayMs: integer(env, 'DRAIN_DELAY_MS', 0, 0, 300_000),
    drainTimeoutMs: integer(env, 'DRAIN_TIMEOUT_MS', 10_000, 0, 600_000),
    concierge,
  };
}

/** The concierge fields: configured values checked, the others derived from the public URL. */
/**
 * `support@<host of PUBLIC_BASE_URL>`. The published schema says `format: email`, which needs a dotted
 * domain: a dotless host (`localhost`) gets the reserved `.invalid` (RFC 2606), so a fresh start's
 * trust anchor passes its own OpenAPI schema.
 */
function defaultSupportEmail(publicBaseUrl: string): string {
  const host = new URL(publicBaseUrl).hostname;
  if (/^[a-z0-9-]+(\.[a-z0-9-]+)+$/i.test(host)) return `support@${host}`;
  return `support@${/^[a-z0-9-]+$/i.test(host) ? host : 'localhost'}.invalid`; // (an IPv6 literal: localhost)
}

function conciergeConfig(env: Env, publicBaseUrl: string): ConciergeConfig {
  const url = (name: string, fallback: string): string => {
    const raw = read(env, name);
    if (raw === undefined) return fallback;
    httpUrl(name, raw);
    return raw;
  };
  const supportEmail = read(env, 'CONCIERGE_SUPPORT_EMAIL') ?? defaultSupportEmail(publicBaseUrl);
  if (!CONCIERGE_EMAIL_PATTERN.test(supportEmail))
    throw new ConfigError('CONCIERGE_SUPPORT_EMAIL', `must be an e-mail address (got "${supportEmail}")`);
  const contactUrisJson = read(env, 'CONCIERGE_CONTACT_URIS');
  if (contactUrisJson !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(contactUrisJson);
    } catch {
      parsed = null;
    }
    if (
      typeof parsed !== 'object' ||
      parsed === null ||
      Array.isArray(parsed) ||
      !Object.values(parsed).every((v) => typeof v === 'string')
    ) {
      throw new ConfigError('CONCIERGE_CONTACT_URIS', 'must be a JSON object of strings');
    }
  }
  const lobbyTokenId = read(env, 'CONCIERGE_LOBBY_TOKEN_ID')?.toLowerCase();
  if (lobbyTokenId !== undefined && !/^[a-z]{12}$/.test(lobbyTokenId))
    throw new ConfigError('CONCIERGE_LOBBY_TOKEN_ID', `must be a 12-letter token id (got "${lobbyTokenId}")`);
  return {
    displayName: read(env, 'CONCIERGE_DISPLAY_NAME') ?? 'Passport Concierge',
    host: url('CONCIERGE_HOST', publicBaseUrl),
    verifyHost: url('CONCIERGE_VERIFY_HOST', publicBaseUrl),
    supportEmail,
    a2aRegistryId: read(env, 'CONCIERGE_A2A_REGISTRY_ID') ?? 'passport-concierge',
    a2aRegistryUrl: url('CONCIERGE_A2A_REGISTRY_URL', `${publicBaseUrl}/api/agents`),
    agentCardUrl: url('CONCIERGE_AGENT_CARD_URL', `${publicBaseUrl}/.well-known/agent-card.json`),
    a2aEndpoint: url('CONCIERGE_A2A_ENDPOINT', `${publicBaseUrl}/a2a`),
    contactUrisJson,
    verifyCli:
      read(env, 'CONCIERGE_VERIFY_CLI') ??
      // A command any verifier has ("npx passport" would fetch an unrelated npm package of that name;
      // this project's tool is not published).
      `curl -s ${publicBaseUrl}/api/identity/verify -H 'Content-Type: application/json' -d '{"hola":"<HOLA line>"}'`,
    lobbyTokenId,
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
