import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import { builtinModules } from 'node:module';

// Globals Node has and browsers lack (Buffer, process, __dirname, require, setImmediate, …).
const nodeOnlyGlobals = Object.keys(globals.node).filter((name) => !(name in globals.browser));

export default tseslint.config(
  { ignores: ['**/dist/**', 'node_modules/**', 'coverage/**', 'data/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false }],
    },
  },
  {
    // Nest DI reads constructor parameter types at run time: those imports must stay value imports.
    files: ['apps/**/*.ts', 'test/**/*.ts'],
    rules: { '@typescript-eslint/consistent-type-imports': 'off' },
  },
  {
    files: ['**/*.spec.ts', 'test/**/*.ts'],
    languageOptions: { globals: { ...globals.jest } },
  },
  {
    // The pure domain library: no framework, HTTP, storage or chain imports (also enforced by dependency-cruiser).
    files: ['libs/passport-core/src/**/*.ts'],
    ignores: ['libs/passport-core/src/node/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: builtinModules.map((name) => ({
            name,
            message: 'Only the /node subpath of passport-core may use Node built-ins.',
          })),
          patterns: [
            { group: ['node:*'], message: 'Only the /node subpath of passport-core may use node: built-ins.' },
            {
              group: ['@nestjs/*', 'fastify', '@fastify/*', 'near-api-js', '@near-js/*', 'better-sqlite3', 'ioredis', 'redis', 'jose', 'pino', '@modelcontextprotocol/*'],
              message: 'passport-core reaches the world through ports only.',
            },
          ],
        },
      ],
    },
  },
  {
    // Browser-safe by construction: every entry of @passport/core but /node runs in browsers, so its
    // sources see browser globals only (tsconfig.browser.json type-checks them without Node types too).
    files: ['libs/passport-core/src/**/*.ts'],
    ignores: ['libs/passport-core/src/node/**', 'libs/passport-core/src/**/*.spec.ts'],
    languageOptions: {
      globals: { ...globals.browser, ...Object.fromEntries(nodeOnlyGlobals.map((name) => [name, 'off'])) },
    },
    rules: {
      'no-restricted-globals': [
        'error',
        ...nodeOnlyGlobals.map((name) => ({ name, message: 'Node only: @passport/core (but /node) runs in browsers.' })),
      ],
    },
  },
  {
    // The package's entries say what is public name by name: an `export *` would publish internals.
    files: ['libs/passport-core/src/index.ts', 'libs/passport-core/src/*/index.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: 'ExportAllDeclaration', message: 'Entries of @passport/core export by name (no export *).' },
      ],
    },
  },
  {
    // The integrator's browser page of the package test (bundled by esbuild, run in Chromium).
    files: ['test/package/fixtures/browser-page.mjs'],
    languageOptions: { globals: { ...globals.browser } },
  },
);
