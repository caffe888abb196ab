/** Jest in native ESM mode (every runtime dependency here is ESM-only); @swc/jest keeps decorator metadata, which Nest's DI needs. */
const swc = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
    target: 'es2022',
    keepClassNames: true,
    // Keep `with { type: 'json' }` on JSON imports (Jest deprecates JSON imports without it).
    experimental: { keepImportAttributes: true, emitAssertForImportAttributes: false },
  },
  module: { type: 'es6' },
  sourceMaps: 'inline',
};

export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', swc] },
  moduleNameMapper: {
    '^@passport/core$': '<rootDir>/libs/passport-core/src/index.ts',
    // Every subpath of the package's exports map is the index.ts of the folder of the same name.
    '^@passport/core/([a-z-]+)$': '<rootDir>/libs/passport-core/src/$1/index.ts',
    // Likewise for the adapters (one subpath per adapter family, no root entry).
    '^@passport/adapters/([a-z-]+)$': '<rootDir>/libs/passport-adapters/src/$1/index.ts',
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  testMatch: ['<rootDir>/libs/**/*.spec.ts', '<rootDir>/apps/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  reporters: ['default', '<rootDir>/scripts/jest-summary-reporter.cjs'],
  testTimeout: 30000,
  // On two cores Jest runs every suite in its main process (with one worker or less it runs in band), where ESM
  // module registries pile up: at 195 suites a clean-clone run died of a 4 GB heap in its 18th minute. With
  // a memory limit Jest always uses a worker, and restarts it after a suite once it holds more than this.
  workerIdleMemoryLimit: '1536MB',
};
