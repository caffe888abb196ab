#!/usr/bin/env node
/**
 * A/B micro-benchmark of a login's store work on SQLite (SqliteLoginRecorder: the used challenge and the
 * session, group-committed per event-loop turn) for two or more built trees (`npx tsc -b
 * tsconfig.build.json` run in each). Each round runs every tree in a fresh process on a fresh database
 * file: 200 passports that already hold OPEN open sessions each (default 100, the per-passport bound, so
 * every login also closes that passport's oldest), then LOGINS logins in turns of 16, and reports the
 * process's CPU time (user + system) per login. Trees alternate; medians are printed.
 *
 *   node scripts/login-store-micro.mjs [rounds] <tree> [<tree> ...]     (env OPEN, LOGINS, IN_PROCESS=1)
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

async function measure(root) {
  const dist = (p) => path.join(root, p);
  const { SqliteDatabase, SqliteLoginRecorder, SqliteReplayStore, SqliteSessionStore } = await import(
    dist('libs/passport-adapters/dist/sqlite/index.js')
  );
  const open = Number(process.env.OPEN ?? 100);
  const logins = Number(process.env.LOGINS ?? 20_000);
  const dir = mkdtempSync(path.join(tmpdir(), 'passport-login-store-'));
  const db = SqliteDatabase.openInDataDir(dir);
  const replay = new SqliteReplayStore(db, { sweepIntervalMs: 0 });
  const sessions = new SqliteSessionStore(db, { sweepIntervalMs: 0 });
  const recorder = new SqliteLoginRecorder(db, replay, sessions);
  const passports = Array.from({ length: 200 }, (_, i) => `tok${String(i).padStart(9, 'a')}`);
  let seq = 0;
  const login = (tokenId) => {
    seq++;
    const nowMs = Date.now();
    const session = {
      sessionId: `sess_${tokenId}_${seq}`,
      tokenId,
      ownerId: 'owner.near',
      jti: `jti${seq}`,
      createdAtMs: nowMs,
      expiresAtMs: nowMs + 3_600_000,
      closedAtMs: null,
      closeReason: null,
      federatedFrom: null,
      renewalCount: 0,
      lastRenewedAtMs: null,
    };
    return recorder.recordLogin({ key: `login|${tokenId}|${seq}`, nowMs, expiresAtMs: nowMs + 300_000 }, session);
  };
  const turns = async (count) => {
    for (let done = 0; done < count; done += 16)
      await Promise.all(Array.from({ length: 16 }, (_, i) => login(passports[(done + i) % passports.length])));
  };
  await turns(open * passports.length); // fill: every passport at OPEN open sessions
  await turns(2000); // warm-up
  const before = process.cpuUsage();
  await turns(logins);
  const used = process.cpuUsage(before);
  const perLogin = (used.user + used.system) / logins;
  recorder.dispose();
  sessions.dispose();
  replay.dispose();
  db.close();
  rmSync(dir, { recursive: true, force: true });
  return perLogin;
}

if (process.env.LOGIN_STORE_MICRO_TREE) {
  const perLogin = await measure(process.env.LOGIN_STORE_MICRO_TREE);
  process.stdout.write(JSON.stringify(perLogin));
} else {
  const args = process.argv.slice(2);
  const rounds = /^\d+$/.test(args[0] ?? '') ? Number(args.shift()) : 3;
  const trees = args.map((t) => path.resolve(t));
  const results = new Map(trees.map((t) => [t, []]));
  for (let r = 0; r < rounds; r++) {
    for (const tree of trees) {
      // IN_PROCESS=1: every tree in this one process (less noise from start-up and drift between rounds).
      const perLogin =
        process.env.IN_PROCESS === '1'
          ? await measure(tree)
          : JSON.parse(
              execFileSync(process.execPath, [new URL(import.meta.url).pathname], {
                env: { ...process.env, LOGIN_STORE_MICRO_TREE: tree },
                encoding: 'utf8',
              }),
            );
      results.get(tree).push(perLogin);
      console.log(`round ${r + 1} ${tree}: ${perLogin.toFixed(1)} µs CPU per login`);
    }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  for (const tree of trees)
    console.log(`${tree}: median ${median(results.get(tree)).toFixed(1)} µs CPU per login (${results.get(tree).map((x) => x.toFixed(1)).join(' / ')})`);
}
