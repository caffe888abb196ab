// Architecture rule: libs/passport-core is the pure domain. It reaches the world only through its ports,
// so frameworks, HTTP, storage and chain clients must never be imported from it. The main entry must also
// stay free of node: built-ins so that it bundles for browsers; only the /node subpath may use them.
module.exports = {
  forbidden: [
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
      name: 'core-not-importing-app',
      severity: 'error',
      from: { path: '^libs/passport-core/src' },
      to: { path: '^apps/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.spec\\.ts$' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};
