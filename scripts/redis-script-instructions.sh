#!/usr/bin/env bash
# Instructions redis-server executes per call of the two scripts a verify runs on STORE=redis (the public
# take with the session epoch, the replay record with a sender quota): a figure other load on the
# machine does not move at all, unlike CPU time. redis-server runs under valgrind's callgrind (counts
# instructions, about 50× slower); redis-benchmark sends N invocations of each script (10 connections,
# pipelines of 4, fresh replay keys), and the count between two callgrind dumps is divided by the calls. It
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

# Prints the two script invocations of one build as JSON {take, record}, each {lua, args} (args begin
# with the key count): the stores are built on a stand-in client that records each script it defines and
# the arguments of its last invocation, and each store gets CALLS calls in one event-loop turn, sent as one
# invocation as the app sends a turn's calls (the public take with the session epoch, on a bucket no take
# drains; replay records from as many senders as calls, each with a quota, and the data-loss history
# guard, as the app wires them; each record's nonce `__rand_int__`, which redis-benchmark replaces with a
# random number in every call).
CALLS=${CALLS:-3}
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
          calls[name] = { lua, args: (numberOfKeys === undefined ? args : [numberOfKeys, ...args]).map(String) };
          return new Promise(() => undefined);
        };
      },
    };
    const history = {
      markerKey: "passport:{replay}:history", generationKey: "passport:{replay}:generation",
      holdKey: "passport:{replay}:loss-hold", knownMarker: "", knownGeneration: null, problem: undefined,
    };
    const take = new mod.RedisRateLimitStore(client, { namespace: "public", sessionEpoch: new mod.FleetSessionEpoch() });
    const replay = new mod.RedisReplayStore(client, { history });
    const now = Date.now();
    const n = Number(process.argv[2]);
    // A bucket no take drains (every take allowed, the common outcome), and as many senders as calls.
    for (let i = 0; i < n; i++) void take.take("public:127.0.0.1", { capacity: 100000000, refillPerMs: 1000 }, now);
    for (let i = 0; i < n; i++) {
      const owner = "sender" + String.fromCharCode(97 + (i % 26)) + Math.floor(i / 26);
      void replay.recordIfAbsent(owner + "|__rand_int__", now, now + 86431000, { owner, maxPerOwner: 100000 });
    }
    await new Promise((resolve) => setImmediate(resolve));
    const of = (prefix) => Object.entries(calls).find(([name]) => name.startsWith(prefix))[1];
    console.log(JSON.stringify({ take: of("passportRateTake"), record: of("passportReplayRecord") }));
    process.exit(0);
  ' "$1" "$CALLS"
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
  "${R[@]}" SET 'passport:{replay}:history' marker >/dev/null
  dump "start" >/dev/null
  redis-benchmark -p "$PORT" -n "$N" -c 10 -P 4 -q EVALSHA "$take_sha" "${take_args[@]}" >/dev/null
  take=$(dump take)
  redis-benchmark -p "$PORT" -n "$N" -r 100000000 -c 10 -P 4 -q EVALSHA "$record_sha" "${record_args[@]}" >/dev/null
  record=$(dump record)
  echo "$dir: take $((take / N / CALLS)), record $((record / N / CALLS)) instructions per call ($CALLS calls an invocation)"
done
