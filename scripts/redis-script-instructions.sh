#!/usr/bin/env bash
# Instructions redis-server executes per call of the two scripts a verify runs on STORE=redis (the public
# take with the session epoch, the replay record with a sender quota): a figure other load on the
# machine does not move at all, unlike CPU time. redis-server runs under valgrind's callgrind (counts
# instructions, about 50× slower); redis-benchmark sends N calls of each script (10 connections,
# pipelines of 4, fresh replay keys), and the count between two callgrind dumps is divided by N. It
# includes reading and answering the command; a script that only returns 1 costs about 25,000.
#
# Each argument is a build of the Redis adapters (a `dist/redis` directory, e.g. a copy of the one before a
# change placed beside it in libs/passport-adapters/dist, so it loads as ES modules); each build's scripts
# and arguments are those its stores send (see scripts_of).
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

# Prints the two calls of one build as JSON {take, record}, each {lua, keys, args}: the stores are built
# on a stand-in client that records the script each defines and the arguments of one call (the public
# take with the session epoch; a replay record with a sender quota, its nonce `__rand_int__`, which
# redis-benchmark replaces with a random number in every call), so a build's own argument layout is used.
scripts_of() {
  node --input-type=module -e '
    import path from "node:path";
    import { pathToFileURL } from "node:url";
    const mod = await import(pathToFileURL(path.resolve(process.argv[1], "index.js")).href);
    const calls = {};
    const client = {
      options: {},
      defineCommand(name, { lua, numberOfKeys }) {
        this[name] = (...args) => {
          calls[name] = { lua, keys: numberOfKeys, args: args.map(String) };
          return new Promise(() => undefined);
        };
      },
    };
    const take = new mod.RedisRateLimitStore(client, { namespace: "public", sessionEpoch: new mod.FleetSessionEpoch() });
    const replay = new mod.RedisReplayStore(client);
    const now = Date.now();
    void take.take("public:127.0.0.1", { capacity: 6101, refillPerMs: 0.01835 }, now);
    const takeCall = Object.entries(calls).find(([n]) => n.startsWith("passportRateTake"))[1];
    void replay.recordIfAbsent("abcdefghijkl|__rand_int__", now, now + 86431000, { owner: "abcdefghijkl", maxPerOwner: 100000 });
    const recordCall = Object.entries(calls).find(([n]) => n.startsWith("passportReplayRecord"))[1];
    console.log(JSON.stringify({ take: takeCall, record: recordCall }));
    process.exit(0);
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

field() { node -e 'const v = JSON.parse(process.argv[1])[process.argv[2]]; process.stdout.write(process.argv[3] === "args" ? v.args.join("\n") : String(v[process.argv[3]]))' "$@"; }
for dir in "$@"; do
  json="$(scripts_of "$dir")"
  take_sha="$("${R[@]}" SCRIPT LOAD "$(field "$json" take lua)")"
  record_sha="$("${R[@]}" SCRIPT LOAD "$(field "$json" record lua)")"
  mapfile -t take_args < <(field "$json" take args)
  mapfile -t record_args < <(field "$json" record args)
  "${R[@]}" FLUSHALL >/dev/null
  dump "start" >/dev/null
  redis-benchmark -p "$PORT" -n "$N" -c 10 -P 4 -q EVALSHA "$take_sha" "$(field "$json" take keys)" "${take_args[@]}" >/dev/null
  take=$(dump take)
  redis-benchmark -p "$PORT" -n "$N" -r 100000000 -c 10 -P 4 -q EVALSHA "$record_sha" "$(field "$json" record keys)" "${record_args[@]}" >/dev/null
  record=$(dump record)
  echo "$dir: take $((take / N)), record $((record / N)) instructions per call"
done
