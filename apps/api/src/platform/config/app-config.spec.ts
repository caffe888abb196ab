import path from 'node:path';
import { ConfigError, loadConfig } from './app-config.js';

function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig rejects bad values with one line naming the variable', () => {
  const cases: Array<[string, Record<string, string>]> = [
    ['PORT', { PORT: 'eighty' }],
    ['PORT', { PORT: '70000' }],
    ['PORT', { PORT: '-1' }],
    // Found by a probe: PORT=0 (any free port) was advertised as http://localhost:0 and frozen into the ledger.
    ['PORT', { PORT: '0' }],
    // Found by a review: a host that is no name at all reached listen and failed after the start's side effects.
    ['HOST', { HOST: 'not a host' }],
    ['HOST', { HOST: 'http://0.0.0.0' }],
    ['HOST', { HOST: '0.0.0.0:3000' }],
    ['PUBLIC_BASE_URL', { PUBLIC_BASE_URL: 'not a url' }],
    ['PUBLIC_BASE_URL', { PUBLIC_BASE_URL: 'ftp://example.com' }],
    ['PUBLIC_BASE_URL', { PUBLIC_BASE_URL: 'https://user:pw@example.com' }],
    // Found by a probe: a bare '#' or '?' leaves url.hash and url.search empty, and was frozen into the ledger.
    ['PUBLIC_BASE_URL', { PUBLIC_BASE_URL: 'https://api.example.com/#' }],
    ['PUBLIC_BASE_URL', { PUBLIC_BASE_URL: 'https://api.example.com?' }],
    ['SERVICE_HOST', { SERVICE_HOST: 'api.example.com/path' }],
    // Found by a probe: each character was checked alone, so markers no host has were taken.
    ['SERVICE_HOST', { SERVICE_HOST: '..' }],
    ['SERVICE_HOST', { SERVICE_HOST: '-' }],
    ['SERVICE_HOST', { SERVICE_HOST: 'api..example.com' }],
    ['SERVICE_HOST', { SERVICE_HOST: '-api.example.com' }],
    ['SERVICE_HOST', { SERVICE_HOST: 'api.example.com.' }],
    ['SERVICE_HOST', { SERVICE_HOST: 'api.example.com:99999' }],
    ['SERVICE_HOST', { SERVICE_HOST: 'api.example.com:0' }],
    ['SERVICE_HOST', { SERVICE_HOST: 'api.example.com:' }],
    ['CHAIN', { CHAIN: 'ethereum' }],
    ['STORE', { STORE: 'postgres' }],
    ['REDIS_URL', { STORE: 'redis' }],
    ['REDIS_URL', { REDIS_URL: 'http://localhost:6379' }],
    // Found by a probe: a database index that is not a number crashed the start with a stack trace.
    ['REDIS_URL', { REDIS_URL: 'redis://localhost:6379/abc' }],
    ['REDIS_URL', { REDIS_URL: 'redis://localhost:6379/1/2' }],
    ['REDIS_URL', { REDIS_URL: 'redis://localhost:6379/-1' }],
    // Found by a probe: a bare "%" in the password passed here and stopped the start with "URI malformed".
    ['REDIS_URL', { REDIS_URL: 'redis://:ab%zz@localhost:6379' }],
    ['REDIS_URL', { REDIS_URL: 'redis://us%er:pw@localhost:6379' }],
    ['REDIS_COMMAND_TIMEOUT_MS', { REDIS_COMMAND_TIMEOUT_MS: '0' }],
    ['NEAR_RPC_URL', { CHAIN: 'near', NEAR_CONTRACT_ID: 'passport.near' }],
    ['NEAR_CONTRACT_ID', { CHAIN: 'near', NEAR_RPC_URL: 'http://127.0.0.1:3030' }],
    ['NEAR_CONTRACT_ID', { NEAR_CONTRACT_ID: 'Bad Contract!' }],
    ['LOGIN_MODE', { LOGIN_MODE: 'anyone' }],
    ['CORS_ORIGINS', { CORS_ORIGINS: 'https://app.example/path' }],
    ['CORS_ORIGINS', { CORS_ORIGINS: 'app.example' }],
    ['CORS_ORIGINS', { CORS_ORIGINS: 'https://app.example,*' }],
    ['CORS_ORIGINS', { CORS_ORIGINS: 'ftp://app.example' }],
    ['CORS_ORIGINS', { CORS_ORIGINS: 'https://user@app.example' }],
    ['TRUSTED_CONTRACTS', { TRUSTED_CONTRACTS: 'ok.near,NOT OK' }],
    ['TRUSTED_PROXIES', { TRUSTED_PROXIES: '10.0.0.0/8,not-an-ip' }],
    ['TRUSTED_PROXIES', { TRUSTED_PROXIES: '10.0.0.0/33' }],
    ['TRUSTED_PROXIES', { TRUSTED_PROXIES: '300.1.1.1' }],
    // Found by a probe: these passed here and failed later in Fastify's proxy-addr, naming no variable.
    ['TRUSTED_PROXIES', { TRUSTED_PROXIES: '1:2' }],
    ['TRUSTED_PROXIES', { TRUSTED_PROXIES: ':::::' }],
    ['TRUSTED_PROXIES', { TRUSTED_PROXIES: '1.2.3.4.5.6.7.8:1' }],
    ['TRUSTED_PROXIES', { TRUSTED_PROXIES: '0.0.0.0/0' }],
    // Ranges that trust every address as /0 does (two halves), or much of the Internet.
    ['TRUSTED_PROXIES', { TRUSTED_PROXIES: '0.0.0.0/1,128.0.0.0/1' }],
    ['TRUSTED_PROXIES', { TRUSTED_PROXIES: '10.0.0.0/7' }],
    ['TRUSTED_PROXIES', { TRUSTED_PROXIES: '::ffff:0.0.0.0/96' }],
    ['TRUSTED_PROXIES', { TRUSTED_PROXIES: '::ffff:0:0/96' }],
    ['TRUSTED_PROXIES', { TRUSTED_PROXIES: '0:0:0:0:0:ffff:0:0/96' }],
    ['TRUSTED_PROXIES', { TRUSTED_PROXIES: '::ffff:a00:0/100' }],
    ['TRUSTED_PROXIES', { TRUSTED_PROXIES: '::ffff:0:0/97,::ffff:8000:0/97' }],
    ['TRUSTED_PROXIES', { TRUSTED_PROXIES: 'fc00::/6' }],
    ['TRUSTED_PROXIES', { TRUSTED_PROXIES: '2000::/3' }],
    // Found by a probe: an IPv6 host (no HOLA host marker) was refused naming SERVICE_HOST, which was unset.
    ['PUBLIC_BASE_URL', { PUBLIC_BASE_URL: 'https://[2001:db8::1]:8443' }],
    ['WEBHOOK_TEST_ENABLED', { WEBHOOK_TEST_ENABLED: 'yes' }],
    ['MCP_MAX_SESSIONS', { MCP_MAX_SESSIONS: '0' }],
    ['SESSION_TTL_SECONDS', { SESSION_TTL_SECONDS: '0' }],
    ['HTTP_SEND_TIMEOUT_MS', { HTTP_SEND_TIMEOUT_MS: '999' }],
    ['HTTP_SEND_TIMEOUT_MS', { HTTP_SEND_TIMEOUT_MS: '60s' }],
    ['JWT_RENEWAL', { JWT_RENEWAL: 'client' }],
    ['SESSION_MAX_ENTRIES', { SESSION_MAX_ENTRIES: '-5' }],
    ['SESSION_MAX_PER_PASSPORT', { SESSION_MAX_PER_PASSPORT: 'many' }],
    ['MCP_SESSION_TTL_MS', { MCP_SESSION_TTL_MS: '1.5' }],
    ['MCP_MAX_SESSIONS_PER_ADDRESS', { MCP_MAX_SESSIONS_PER_ADDRESS: '0' }],
    ['MCP_MAX_SESSIONS_PER_ADDRESS', { MCP_MAX_SESSIONS: '10', MCP_MAX_SESSIONS_PER_ADDRESS: '11' }],
    ['LOG_LEVEL', { LOG_LEVEL: 'loud' }],
    ['HOLA_FUTURE_SKEW_MS', { HOLA_FUTURE_SKEW_MS: 'abc' }],
    ['HOLA_VERIFY_THREADPOOL', { HOLA_VERIFY_THREADPOOL: 'off' }],
    ['NEAR_VIEW_TOKEN', { NEAR_VIEW_TOKEN: 'rodit-token' }],
    ['CONCIERGE_HOST', { CONCIERGE_HOST: 'id.example.org' }],
    ['CONCIERGE_A2A_ENDPOINT', { CONCIERGE_A2A_ENDPOINT: 'ftp://id.example.org/a2a' }],
    ['CONCIERGE_SUPPORT_EMAIL', { CONCIERGE_SUPPORT_EMAIL: 'help at example.org' }],
    ['CONCIERGE_CONTACT_URIS', { CONCIERGE_CONTACT_URIS: '["mailto:a@b.example"]' }],
    ['CONCIERGE_LOBBY_TOKEN_ID', { CONCIERGE_LOBBY_TOKEN_ID: 'bjbvcjzqbds1' }],
    ['RATE_LIMIT_CAPACITY', { RATE_LIMIT_CAPACITY: '0' }],
    ['RATE_LIMIT_REFILL_PER_MINUTE', { RATE_LIMIT_REFILL_PER_MINUTE: 'x' }],
    ['METRICS_TOKEN', { METRICS_TOKEN: 'too-short' }],
    ['METRICS_TOKEN', { METRICS_TOKEN: 'with a space in it 0123456789abcdefgh' }],
    ['METRICS_TOKEN', { METRICS_TOKEN: 'é'.repeat(40) }],
    ['DRAIN_DELAY_MS', { DRAIN_DELAY_MS: '-5' }],
    ['DRAIN_TIMEOUT_MS', { DRAIN_TIMEOUT_MS: '600001' }],
  ];
  it.each(cases)('%s', (variable, env) => {
    const err = configError(env);
    expect(err.variable).toBe(variable);
    expect(err.message).toContain(variable);
    expect(err.message).not.toContain('\n');
  });

  // The README says what a switch takes; a value it refuses says so too.
  it.each([
    ['true', true],
    ['TRUE', true],
    ['1', true],
    ['false', false],
    ['False', false],
    ['0', false],
  ])('a switch takes %s (README: true or false in any case, or 1 or 0)', (value, expected) => {
    expect(loadConfig({ WEBHOOK_TEST_ENABLED: value }).webhookTestEnabled).toBe(expected);
  });

  // From a mutation probe: each bound moved by one passed, since the tests took values far from it.
  it.each([
    ['TRUSTED_PROXIES', { TRUSTED_PROXIES: '::ffff:a00:0/103' }, { TRUSTED_PROXIES: '::ffff:a00:0/104' }],
    ['TRUSTED_PROXIES', { TRUSTED_PROXIES: '2001:db8::/31' }, { TRUSTED_PROXIES: '2001:db8::/32' }],
    ['TRUSTED_PROXIES', { TRUSTED_PROXIES: '10.0.0.0/7' }, { TRUSTED_PROXIES: '10.0.0.0/8' }],
    ['METRICS_TOKEN', { METRICS_TOKEN: 'a'.repeat(31) }, { METRICS_TOKEN: 'a'.repeat(32) }],
    [
      'HTTP_HEADERS_TIMEOUT_MS',
      { HTTP_REQUEST_TIMEOUT_MS: '1000', HTTP_HEADERS_TIMEOUT_MS: '1001' },
      { HTTP_REQUEST_TIMEOUT_MS: '1000', HTTP_HEADERS_TIMEOUT_MS: '1000' },
    ],
    ['HOLA_FUTURE_SKEW_MS', { HOLA_FUTURE_SKEW_MS: '300001' }, { HOLA_FUTURE_SKEW_MS: '300000' }],
  ] as const)(
    '%s: the first value past the bound is refused, the bound itself taken',
    (variable, refused, taken) => {
      expect(configError(refused).variable).toBe(variable);
      expect(() => loadConfig(taken)).not.toThrow();
    },
  );

  it('a refused switch names the accepted forms', () => {
    expect(configError({ WEBHOOK_TEST_ENABLED: 'yes' }).message).toContain(
      'must be true, false, 1 or 0 (got "yes")',
    );
  });
});

describe('loadConfig defaults (docs/protocol.md §9)', () => {
  // Found by a review: a fixed 301 s hold let a line stamped ahead (HOLA_FUTURE_SKEW_MS, or a login
  // challenge up to 30 s ahead) be accepted again after a loss of Redis's data.
  it('REDIS_LOSS_HOLD_MS defaults to the longest a used line or challenge stays acceptable', () => {
    expect(loadConfig({}).redisLossHoldMs).toBe(300_000 + 30_000 + 1000);
    expect(loadConfig({ HOLA_FUTURE_SKEW_MS: '120000' }).redisLossHoldMs).toBe(300_000 + 120_000 + 1000);
    expect(loadConfig({ HOLA_FUTURE_SKEW_MS: '120000', REDIS_LOSS_HOLD_MS: '0' }).redisLossHoldMs).toBe(0);
  });

  it('fills every variable', () => {
    const config = loadConfig({});
    const dataDir = path.resolve('./data');
    expect(config).toMatchObject({
      port: 3000,
      host: '0.0.0.0',
      publicBaseUrl: 'http://localhost:3000',
      serviceHost: 'localhost:3000',
      dataDir,
      chain: 'ledger',
      ledgerFile: path.join(dataDir, 'ledger.json'),
      serverCredentialsFile: path.join(dataDir, 'keys', 'server.json'),
      familyCredentialsFile: path.join(dataDir, 'keys', 'family-root.json'),
      nearRpcUrl: undefined,
      nearContractId: undefined,
      store: 'sqlite',
      redisUrl: undefined,
      redisCommandTimeoutMs: 500,
      redisLossHoldMs: 331_000,
      loginMode: 'partner',
      trustedContracts: [],
      trustedProxies: [],
      webhookTestEnabled: false,
      webhookTlsSkipVerify: false,
      mcpMaxSessions: 1000,
      mcpMaxSessionsPerAddress: 100,
      mcpSessionTtlMs: 1_800_000,
      logLevel: 'info',
      holaFutureSkewMs: 0,
      holaVerifyThreadPool: true,
      rateLimit: { capacity: 6101, refillPerMinute: 1101 },
      sessions: { ttlSeconds: 5200, renewal: 'server', maxEntries: 100_000, maxOpenPerPassport: 100 },
      metricsToken: undefined,
      drainDelayMs: 0,
      drainTimeoutMs: 10_000,
    });
    expect(loadConfig({ HOLA_VERIFY_THREADPOOL: 'false' }).holaVerifyThreadPool).toBe(false);
    expect(loadConfig({ JWT_RENEWAL: 'off', SESSION_TTL_SECONDS: '900' }).sessions).toMatchObject({
      renewal: 'off',
      ttlSeconds: 900,
    });
    expect(config.concierge.lobbyTokenId).toBeUndefined();
  });

  it('derives the public URL, service host and files from PORT, PUBLIC_BASE_URL and DATA_DIR', () => {
    const config = loadConfig({
      PORT: '8080',
      PUBLIC_BASE_URL: 'https://API.Example.com/',
      DATA_DIR: '/tmp/x',
    });
    expect(config.publicBaseUrl).toBe('https://api.example.com');
    expect(config.serviceHost).toBe('api.example.com');
    expect(config.ledgerFile).toBe('/tmp/x/ledger.json');
    expect(loadConfig({ PORT: '8080' }).publicBaseUrl).toBe('http://localhost:8080');
    // With the public URL explicit, any free port is fine (a balancer or a test finds it).
    expect(loadConfig({ PORT: '0', PUBLIC_BASE_URL: 'https://api.example.com' }).port).toBe(0);
  });

  it('takes HOST as an IP address or a host name, Docker service names with underscores included', () => {
    for (const host of [
      '127.0.0.1',
      '::',
      '::1',
      'localhost',
      'api.internal.',
      'passport_api',
      'api-1.example.org',
    ])
      expect(loadConfig({ HOST: host }).host).toBe(host);
  });

  it('takes an IPv6 public URL when SERVICE_HOST names the host marker', () => {
    const config = loadConfig({
      PUBLIC_BASE_URL: 'https://[2001:db8::1]:8443',
      SERVICE_HOST: 'api.example.com',
    });
    expect([config.publicBaseUrl, config.serviceHost]).toEqual([
      'https://[2001:db8::1]:8443',
      'api.example.com',
    ]);
  });

  it('trusts the configured NEAR contract when TRUSTED_CONTRACTS is unset', () => {
    const config = loadConfig({
      CHAIN: 'near',
      NEAR_RPC_URL: 'http://127.0.0.1:3030',
      NEAR_CONTRACT_ID: 'passport.near',
    });
    expect(config.trustedContracts).toEqual(['passport.near']);
  });

  it('parses lists, booleans and enums case-insensitively; empty values count as unset', () => {
    const config = loadConfig({
      TRUSTED_PROXIES: ' 10.0.0.0/8 , ::1, 192.168.1.1 ',
      WEBHOOK_TEST_ENABLED: 'TRUE',
      STORE: 'Memory',
      LOG_LEVEL: '',
    });
    expect(config.trustedProxies).toEqual(['10.0.0.0/8', '::1', '192.168.1.1']);
    expect(loadConfig({ TRUSTED_PROXIES: '2001:db8::/32,::ffff:10.0.0.1' }).trustedProxies).toHaveLength(2);
    // A /0 is refused for its width, the reason an operator needs to read.
    expect(() => loadConfig({ TRUSTED_PROXIES: '0.0.0.0/0' })).toThrow(/trusts too wide a range/);
    expect(
      loadConfig({
        TRUSTED_PROXIES:
          '172.16.0.0/12,::ffff:10.0.0.0/104,::ffff:a00:0/104,fd00::/32,::/32,fc00::/7,fe80::/10',
      }).trustedProxies,
    ).toHaveLength(7);
    expect(config.webhookTestEnabled).toBe(true);
    expect(config.store).toBe('memory');
    expect(config.logLevel).toBe('info');
  });
});

describe('CORS_ORIGINS', () => {
  it('is off by default, * alone, or origins as the URL standard writes them', () => {
    expect(loadConfig({}).corsOrigins).toEqual([]);
    expect(loadConfig({ CORS_ORIGINS: '*' }).corsOrigins).toBe('*');
    expect(
      loadConfig({ CORS_ORIGINS: ' https://App.Example , http://localhost:5173/ ' }).corsOrigins,
    ).toEqual(['https://app.example', 'http://localhost:5173']);
  });
});
