#!/usr/bin/env bash
# The whole test suite: dependency rules, lint, type check, then every Jest suite (unit, property, e2e, MCP, browser).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-test-deps.sh
echo "== dependency rules over apps and libs (no cycles; the core stays pure; the CLI imports no app)"
npx depcruise --config .dependency-cruiser.cjs apps libs
echo "== lint"
npx eslint .
echo "== type check and build"
npx tsc -p tsconfig.json
npx tsc -p libs/passport-core/tsconfig.browser.json   # the core but /node, without Node types
npx tsc -b tsconfig.build.json
echo "== tests"
node --experimental-vm-modules node_modules/jest/bin/jest.js --ci "$@"
