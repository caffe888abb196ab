// Dependency rules over the whole tree (`npm run deps:check` cruises apps and libs).
// libs/passport-core is the pure domain: it reaches the world only through its ports, so frameworks,
// HTTP, storage and chain clients are never imported from it, nor any adapter or app; it depends on its
// three declared packages only, and everything but its /node subpath is free of Node built-ins so that it
// bundles for browsers. The adapters (libs/passport-adapters) import no app, and each adapter family loads
// only its own client library, so that a subpath never drags in another family's. Nothing but apps/api
// itself imports apps/api (its tests are outside the cruised tree). Inside apps/api/src, the feature folders
// (login/, session/, hola/, identity/, admin/, ...) and platform/ form no cycle, and platform/ imports no feature.

// The folders of apps/api/src/platform/ in the order they stand on each other (README, Architecture): each
// imports only folders named before it. The files at platform/'s root (its module, the Fastify hooks) may
// import any of them.
const PLATFORM_ORDER = ['infrastructure', 'config', 'logging', 'http', 'chain', 'openapi', 'metrics', 'lifecycle', 'health', 'store'];

module.exports = {
  forbidden: [
    ...PLATFORM_ORDER.slice(0, -1).map((folder, at) => ({
      name: `api-platform-${folder}-imports-only-earlier-folders`,
      severity: 'error',
      comment: `platform/${folder}/ imports only platform folders named before it: ${PLATFORM_ORDER.slice(0, at).join(', ') || 'none'}.`,
      from: { path: `^apps/api/src/platform/${folder}/` },
      to: { path: `^apps/api/src/platform/(${PLATFORM_ORDER.slice(at + 1).join('|')})/` },
    })),
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import cycles anywhere in apps and libs.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'api-no-circular-between-folders',
      severity: 'error',
      comment:
        'apps/api/src is grouped by feature (login, session, hola, identity, admin, ...) over platform/: ' +
        'no folder imports a folder that imports it, directly or through others.',
      scope: 'folder',
      from: { path: '^apps/api/src/' },
      to: { circular: true },
    },
    {
      name: 'api-platform-not-importing-features',
      severity: 'error',
      comment: 'platform/ is what the features stand on: it imports no feature folder.',
      from: { path: '^apps/api/src/platform/' },
      to: { path: '^apps/api/src/', pathNot: '^apps/api/src/platform/' },
    },
    {
      name: 'core-no-frameworks-storage-or-chain',
      severity: 'error',
      comment: 'passport-core talks to the world through ports only (see README, Architecture).',
      from: { path: '^libs/passport-core/src' },
      to: {
        path: '(^|/)node_modules/(@nestjs|fastify|@fastify|express|near-api-js|@near-js|better-sqlite3|ioredis|redis|pino|@modelcontextprotocol|jose|undici|axios)(/|$)',
      },
    },
    {
      name: 'core-only-declared-dependencies',
      severity: 'error',
      comment: 'The published package declares @noble/curves, @noble/hashes and bs58, nothing else.',
      from: { path: '^libs/passport-core/src' },
      to: { path: '(^|/)node_modules/', pathNot: '(^|/)node_modules/(@noble/curves|@noble/hashes|bs58)/' },
    },
    {
      name: 'core-no-http-builtins',
      severity: 'error',
      from: { path: '^libs/passport-core/src' },
      to: { dependencyTypes: ['core'], path: '^(node:)?(http|https|http2|net|tls|dgram|dns|fs|fs/promises|child_process|cluster)$' },
    },
    {
      name: 'core-main-entry-browser-safe',
      severity: 'error',
      comment: 'Only libs/passport-core/src/node/** may import node: built-ins.',
      from: { path: '^libs/passport-core/src', pathNot: '^libs/passport-core/src/node/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'core-browser-part-not-importing-node-lane',
      severity: 'error',
      comment: 'The browser-safe entries must not pull in the node:crypto lane.',
      from: { path: '^libs/passport-core/src', pathNot: '^libs/passport-core/src/node/|\\.spec\\.ts$' },
      to: { path: '^libs/passport-core/src/node/' },
    },
    {
      name: 'core-not-importing-app',
      severity: 'error',
      from: { path: '^libs/passport-core/' },
      to: { path: '^apps/' },
    },
    {
      name: 'core-not-importing-adapters',
      severity: 'error',
      from: { path: '^libs/passport-core/' },
      to: { path: '^libs/passport-adapters/' },
    },
    {
      name: 'adapters-not-importing-app',
      severity: 'error',
      from: { path: '^libs/passport-adapters/' },
      to: { path: '^apps/' },
    },
    {
      name: 'cli-not-importing-app',
      severity: 'error',
      comment: 'The passport CLI uses the core and the adapters library, never the API app.',
      from: { path: '^apps/cli/' },
      to: { path: '^apps/api/' },
    },
    {
      name: 'api-imported-by-api-only',
      severity: 'error',
      comment: 'apps/api/src is the app: libraries and other apps take what they share from libs/.',
      from: { pathNot: '^apps/api/' },
      to: { path: '^apps/api/' },
    },
    {
      name: 'adapters-only-declared-dependencies',
      severity: 'error',
      comment: '@passport/adapters depends on the core and, as optional peers, on each family\'s client library.',
      from: { path: '^libs/passport-adapters/src' },
      to: {
        path: '(^|/)node_modules/',
        pathNot: '(^|/)node_modules/(@passport/core|better-sqlite3|near-api-js|@near-js/[^/]+|ioredis|redis|@redis/[^/]+)/',
      },
    },
    {
      name: 'adapters-near-client-in-near-only',
      severity: 'error',
      comment: 'near-api-js loads only with the ./near subpath.',
      from: { path: '^libs/passport-adapters/src', pathNot: '^libs/passport-adapters/src/near/' },
      to: { path: '(^|/)node_modules/(near-api-js|@near-js)/' },
    },
    {
      name: 'adapters-sqlite-client-in-sqlite-only',
      severity: 'error',
      comment: 'better-sqlite3 loads only with the ./sqlite subpath.',
      from: { path: '^libs/passport-adapters/src', pathNot: '^libs/passport-adapters/src/sqlite/' },
      to: { path: '(^|/)node_modules/better-sqlite3/' },
    },
    {
      name: 'adapters-redis-client-in-redis-only',
      severity: 'error',
      comment: 'A Redis client loads only with the ./redis subpath.',
      from: { path: '^libs/passport-adapters/src', pathNot: '^libs/passport-adapters/src/redis/' },
      to: { path: '(^|/)node_modules/(ioredis|redis|@redis)/' },
    },
    {
      name: 'adapters-through-their-package',
      severity: 'error',
      comment: 'Apps import the adapters by their package subpaths (@passport/adapters/<family>), not by file.',
      from: { path: '^apps/' },
      to: { path: '^libs/passport-adapters/src/(?!\\w+/index\\.ts$)' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.spec\\.ts$|(^|/)dist/' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};
