#!/usr/bin/env bash
# Regenerates libs/passport-core/test-vectors/*.json from fixed seeds. The output is deterministic:
# running it on a clean checkout must leave git status clean.
set -euo pipefail
cd "$(dirname "$0")/.."
for script in libs/passport-core/scripts/vectors/*.vectors.ts; do
  echo "== ${script}"
  npx tsx "$script"
done
