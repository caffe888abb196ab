#!/usr/bin/env bash
# Instructions redis-server executes per call of the two scripts a verify runs on STORE=redis (the public
# take with the session epoch, the replay record with a sender quota): a figure other load on the
# machine does not move at all, unlike CPU time. redis-server runs under valgrind's callgrind (counts
# instructions, about 50× slower); redis-benchmark sends N calls of each script (10 connections,
# pipelines of 4, fresh replay keys), and the count between two callgrind dumps is divided by N. It
# includes reading and answering the command; a script that only returns 1 costs about 25,000.
#
# Each argument is a build of the Redis adapters (a `dist/redis` directory, e.g. a copy of the one before
# a change); the scripts are read from its redis-client.js, redis-rate-limit.store.js and
# redis-replay.store.js (the template constants, `${...}` filled in by evaluating the modules' text).
#
#   npx tsc -b tsconfig.build.json && bash scripts/redis-script-instructions.sh libs/passport-adapters/dist/redis [other dirs...]
# Needs valgrind, redis-server, redis-benchmark and redis-cli. N=3000 calls per script by default.
set -euo pipefail
N=${N:-3000}
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="$(mktemp -d)"
PORT="$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")"
valgrind --tool=callgrind --callgrind-out-file="$WORK/callgrind.out" \
  redis-server --port "$PORT" --bind 127.0.0.1 --save '' --appendonly no --loglevel warning >"$WORK/valgrind.log" 2>&1 &
VG=$!
trap 'kill $VG 2>/dev/null || true; wait $VG 2>/dev/null || true; rm -rf "$WORK"' EXIT
R=(redis-cli -p "$PORT")
for _ in $(seq 100); do "${R[@]}" ping >/dev/null 2>&1 && break; sleep 0.2; done

# Prints the scripts of one build as JSON {take, record}.
scripts_of() {
  node --input-type=module -e '
    import { readFileSync } from "node:fs";
    const dir = process.argv[1];
    const text = (f) => readFileSync(`${dir}/${f}`, "utf8");
    // Every `const NAME = ...;` of the three modules (string templates and numbers), in order, so later
    // templates can use earlier ones.
    const scope = {};
    for (const f of ["redis-client.js", "redis-rate-limit.store.js", "redis-replay.store.js"]) {
      for (const m of text(f).matchAll(/^(?:export )?const ([A-Z_]+) = (`[\s\S]*?`|[\d_]+);$/gm)) {
        scope[m[1]] = new Function(...Object.keys(scope), `return ${m[2]};`)(...Object.values(scope));
      }
    }
    console.log(JSON.stringify({ take: scope.TAKE_WITH_EPOCH_LUA, record: scope.RECORD_LUA }));
  ' "$1"
}

# Instructions executed since the last dump (callgrind_control -d writes a part with the counts since).
dump() {
  callgrind_control -d "$1" >/dev/null 2>&1
  sleep 0.3
  local part
  part="$(ls -t "$WORK"/callgrind.out* | head -1)"
  grep -m1 -E '^(summary|totals):' "$part" | awk '{print $2}'
}

for dir in "$@"; do
  json="$(scripts_of "$dir")"
  take_sha="$("${R[@]}" SCRIPT LOAD "$(node -e 'process.stdout.write(JSON.parse(process.argv[1]).take)' "$json")")"
  record_sha="$("${R[@]}" SCRIPT LOAD "$(node -e 'process.stdout.write(JSON.parse(process.argv[1]).record)' "$json")")"
  "${R[@]}" FLUSHALL >/dev/null
  now=$(date +%s%3N)
  expires=$((now + 86431000))
  dump "start" >/dev/null
  redis-benchmark -p "$PORT" -n "$N" -c 10 -P 4 -q EVALSHA "$take_sha" 4 'passport:{sess}:rl:public:b:public:127.0.0.1' \
    'passport:{sess}:rl:public:lru' 'passport:{sess}:rl:public:full' 'passport:{sess}:epoch' \
    6101 0.018350000000000002 "$now" 100000 public:127.0.0.1 'passport:{sess}:rl:public:b:' >/dev/null
  take=$(dump take)
  redis-benchmark -p "$PORT" -n "$N" -r 100000000 -c 10 -P 4 -q EVALSHA "$record_sha" 3 \
    'passport:{replay}:r:abcdefghijkl|__rand_int__' 'passport:{replay}:exp' 'passport:{replay}:o:abcdefghijkl' \
    'abcdefghijkl|__rand_int__' "$now" "$expires" 1000000 100000 'passport:{replay}:r:' 900000 >/dev/null
  record=$(dump record)
  echo "$dir: take $((take / N)), record $((record / N)) instructions per call"
done
