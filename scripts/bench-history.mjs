#!/usr/bin/env node
// Appends one row of the named figures in bench/results/latest.json to the history table of
// docs/benchmarks.md, and rewrites the README's short table of the latest figures (between its
// `bench:latest` markers). Run after `npm run bench -- verify http auth` (and memory, soak):
//   npm run bench:history            (--dry-run prints the row and the table instead of writing)
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const latestFile = process.env.BENCH_RESULTS_FILE ?? path.join(ROOT, 'bench/results/latest.json');
const historyFile = path.join(ROOT, 'docs/benchmarks.md');
const readmeFile = path.join(ROOT, 'README.md');
const dryRun = process.argv.includes('--dry-run');

const latest = JSON.parse(readFileSync(latestFile, 'utf8'));
const f = latest.figures ?? {};
const ratio = (name) => (f[name] ? f[name].value.toFixed(2) : '–');
const percent = (name) => (f[name] ? `${(f[name].value * 100).toFixed(1)} %` : '–');
const memory = latest.suites?.memory;
const soak = latest.suites?.soak;

/** Suites whose section comes from another commit than the newest one are named in the notes. */
const otherCommits = Object.entries(latest.suites ?? {})
  .filter(([, s]) => s.commit !== latest.commit)
  .map(([name, s]) => `${name} at ${s.commit}`);
const notes = [
  `load ${Math.max(...Object.values(latest.suites ?? {}).map((s) => s.loadAverage1m ?? 0))}`,
  ...(soak
    ? [
        `soak ${soak.seconds} s ${soak.passed ? 'passed' : 'FAILED'} (RSS ${soak.rssGrowthMb >= 0 ? '+' : ''}${soak.rssGrowthMb} MiB after warm-up)`,
      ]
    : []),
  ...otherCommits,
].join('; ');

const row = [
  latest.updatedAt.slice(0, 16).replace('T', ' '),
  latest.commit,
  latest.rawVerifyPerSecond ?? '–',
  ratio('verifyDefaultStoreToRawVerify'),
  ratio('verifyMemoryStoreToRawVerify'),
  ratio('verifyRedisStoreToRawVerify'),
  ratio('appGetToBareFastify'),
  ratio('loginToRawVerify'),
  percent('jwtTierOverhead'),
  percent('jwtTierOverheadRedis'),
  memory?.app?.sqlite
    ? `${memory.app.sqlite.rssIdleMb} / ${memory.app.sqlite.rssUnderVerifyLoadPeakMb}`
    : '–',
  notes,
];
const rowText = `| ${row.join(' | ')} |`;

const latency = (name) => (f[name]?.p99Ms !== undefined ? `${f[name].p50Ms} / ${f[name].p99Ms}` : '–');
const readmeTable = [
  `Latest figures (\`bench/results/latest.json\`, ${latest.updatedAt.slice(0, 10)}, commit ${latest.commit}, Node ${latest.node}, ${latest.cpus} vCPUs shared; raw node:crypto Ed25519 verify ${latest.rawVerifyPerSecond ?? '–'}/s):`,
  '',
  '| figure | value | goal | p50 / p99 ms |',
  '|---|---|---|---|',
  `| verify ÷ raw verify, default store (SQLite) | ${ratio('verifyDefaultStoreToRawVerify')} | ≥ 0.9 | ${latency('verifyDefaultStoreToRawVerify')} |`,
  `| verify ÷ raw verify, memory store | ${ratio('verifyMemoryStoreToRawVerify')} | ≥ 0.9 | ${latency('verifyMemoryStoreToRawVerify')} |`,
  `| verify ÷ raw verify, Redis | ${ratio('verifyRedisStoreToRawVerify')} | ≥ 0.8 | ${latency('verifyRedisStoreToRawVerify')} |`,
  `| app GET (lower of \`/\`, \`/health\`) ÷ bare Fastify | ${ratio('appGetToBareFastify')} | ≥ 0.6 | ${latency('appGetToBareFastify')} |`,
  `| login ÷ raw verify (SQLite) | ${ratio('loginToRawVerify')} | ≥ 0.35 | ${latency('loginToRawVerify')} |`,
  `| JWT tier overhead (SQLite) | ${percent('jwtTierOverhead')} | ≤ 8 % | ${latency('jwtTierOverhead')} |`,
  `| JWT tier overhead (Redis) | ${percent('jwtTierOverheadRedis')} | ≤ 15 % | ${latency('jwtTierOverheadRedis')} |`,
  ...(memory?.app?.sqlite
    ? [
        `| RSS idle / under verify load (SQLite), MiB | ${memory.app.sqlite.rssIdleMb} / ${memory.app.sqlite.rssUnderVerifyLoadPeakMb} | | |`,
      ]
    : []),
  ...(soak
    ? [
        `| soak (${soak.seconds} s, mixed traffic), RSS growth after warm-up | ${soak.rssGrowthMb} MiB, ${soak.passed ? 'passed' : 'FAILED'} | ≤ ${soak.bounds.maxRssGrowthMb} MiB | |`,
      ]
    : []),
].join('\n');

function replaceBetween(text, start, end, content, file) {
  const a = text.indexOf(start);
  const b = text.indexOf(end);
  if (a < 0 || b < a) throw new Error(`${file} lacks the markers ${start} … ${end}`);
  return `${text.slice(0, a + start.length)}\n${content}\n${text.slice(b)}`;
}

if (dryRun) {
  console.log(rowText);
  console.log();
  console.log(readmeTable);
} else {
  const history = readFileSync(historyFile, 'utf8');
  const endMarker = '<!-- history:end -->';
  const at = history.indexOf(endMarker);
  if (at < 0) throw new Error(`${historyFile} lacks ${endMarker}`);
  writeFileSync(historyFile, `${history.slice(0, at)}${rowText}\n${history.slice(at)}`);
  const readme = readFileSync(readmeFile, 'utf8');
  writeFileSync(
    readmeFile,
    replaceBetween(
      readme,
      '<!-- bench:latest:start -->',
      '<!-- bench:latest:end -->',
      readmeTable,
      readmeFile,
    ),
  );
  console.log(`appended to docs/benchmarks.md: ${rowText}\nrewrote the latest figures in README.md`);
}
