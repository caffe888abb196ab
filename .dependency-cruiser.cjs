// Dependency rules over the whole tree (`npm run deps:check` cruises apps and libs).
// libs/passport-core is the pure domain: it reaches the world only through its ports, so frameworks,
// HTTP, storage and chain clients are never imported from it, nor any adapter or app; it depends on its
// three declared packages only, and everything but its /node subpath is free of Node built-ins so that it
// bundles for browsers. The adapters (today in apps/api/src/chain and store; later libs/passport-adapters)
// import no app, and the CLI imports no app.

// Import cycles that exist today, to be removed when the store adapters move to libs/passport-adapters:
// each store-backend family file imports the StoreBackend type from store-backend.ts, which imports them
// all to choose one. Any other cycle fails.
const KNOWN_CYCLES = '^apps/api/src/store/[a-z.-]*store-backend\\.ts$';
// The chain readers the CLI still takes from apps/api until they move to libs/passport-adapters.
const CLI_BORROWED_ADAPTERS = '^apps/api/src/chain/';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import cycles anywhere in apps and libs.',
      from: { pathNot: KNOWN_CYCLES },
      to: { circular: true },
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
      comment: 'The passport CLI uses the core (and, until they move to a library, the chain readers), never the API app.',
      from: { path: '^apps/cli/' },
      to: { path: '^apps/api/', pathNot: CLI_BORROWED_ADAPTERS },
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
