#!/usr/bin/env bash
# The whole test suite: architecture rule, lint, type check, then every Jest suite (unit, property, e2e, MCP, browser).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-test-deps.sh
echo "== dependency rule (libs/passport-core stays pure)"
npx depcruise --config .dependency-cruiser.cjs libs/passport-core/src
echo "== lint"
npx eslint .
echo "== type check and build"
npx tsc -p tsconfig.json
npx tsc -b tsconfig.build.json
echo "== tests"
node --experimental-vm-modules node_modules/jest/bin/jest.js --ci "$@"
