#!/usr/bin/env bash
# The whole test suite: dependency rules, lint and format, type check, then every Jest suite (unit, property, e2e, MCP, browser).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-test-deps.sh
echo "== dependency rules over apps and libs (no cycles; the core stays pure; the CLI imports no app)"
npx depcruise --config .dependency-cruiser.cjs apps libs
echo "== lint and format (TypeScript sources; the Markdown tables are left as written)"
npx eslint .
npx prettier --check --log-level warn "apps/**/*.ts" "libs/**/*.ts" "test/**/*.ts" "scripts/**/*.ts" "bench/**/*.ts"
echo "== type check and build"
npm run -s typecheck   # the whole tree, and the core but /node without Node types
npx tsc -b tsconfig.build.json
echo "== tests"
node --experimental-vm-modules node_modules/jest/bin/jest.js --ci "$@"
