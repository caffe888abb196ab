#!/usr/bin/env node
/**
 * The top self-time frames of a V8 CPU profile (`node --cpu-prof`), so a profiling note's figures can
 * be reproduced: `node scripts/cpu-profile-top.mjs <file.cpuprofile> [count] [--by=function|file] [--inclusive] [--last=SECONDS]`.
 * Self time is the samples whose top frame is the function (or a function of the file), as a share of
 * all samples; "(idle)" and "(program)" are V8's own pseudo-frames. Paths are shortened to the
 * package or the repository-relative file.
 */
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith('--') && !/^\d+$/.test(a));
const count = Number(args.find((a) => /^\d+$/.test(a)) ?? 25);
const by = (args.find((a) => a.startsWith('--by=')) ?? '--by=function').slice(5);
// --inclusive: time spent in a function or anything it called (each function counted once per sample).
const inclusive = args.includes('--inclusive');
// --last=SECONDS: only the samples of the profile's last SECONDS (the load run, without the start-up's
// module loading, which otherwise shows among the top frames of a short run).
const lastSeconds = Number((args.find((a) => a.startsWith('--last=')) ?? '--last=0').slice(7));
if (!file) {
  console.error('usage: node scripts/cpu-profile-top.mjs <file.cpuprofile> [count] [--by=function|file] [--inclusive] [--last=SECONDS]');
  process.exit(2);
}

const profile = JSON.parse(readFileSync(file, 'utf8'));
const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const hits = new Map();
const sampleTimes = [];
for (let i = 0, t = profile.startTime; i < profile.samples.length; i++) sampleTimes.push((t += profile.timeDeltas[i]));
const fromTime = lastSeconds > 0 ? profile.endTime - lastSeconds * 1e6 : -Infinity;
profile.samples.forEach((id, i) => {
  if (sampleTimes[i] >= fromTime) hits.set(id, (hits.get(id) ?? 0) + 1);
});

function shortUrl(url) {
  if (!url) return '';
  const path = url.replace(/^file:\/\//, '');
  const nm = path.lastIndexOf('node_modules/');
  if (nm >= 0) return path.slice(nm + 'node_modules/'.length);
  const repo = path.search(/\/(apps|libs)\//);
  return repo >= 0 ? path.slice(repo + 1) : path;
}

const parents = new Map();
for (const n of profile.nodes) for (const child of n.children ?? []) parents.set(child, n.id);

function keyOf(frame) {
  const where = shortUrl(frame.url);
  return by === 'file'
    ? where || frame.functionName || '(native)'
    : `${frame.functionName || '(anonymous)'}${where ? ` ${where}:${frame.lineNumber + 1}` : ''}`;
}

const totals = new Map();
let all = 0;
for (const [id, n] of hits) {
  all += n;
  if (!inclusive) {
    const key = keyOf(nodes.get(id).callFrame);
    totals.set(key, (totals.get(key) ?? 0) + n);
    continue;
  }
  const seen = new Set();
  for (let at = id; at !== undefined; at = parents.get(at)) {
    const frame = nodes.get(at).callFrame;
    if (frame.functionName === '(root)') continue;
    seen.add(keyOf(frame));
  }
  for (const key of seen) totals.set(key, (totals.get(key) ?? 0) + n);
}
const idle = (totals.get('(idle)') ?? 0);
console.log(`${file}: ${all} samples, ${((100 * idle) / all).toFixed(1)} % idle; shares below are of busy samples`);
const busy = all - idle;
const rows = [...totals].filter(([k]) => k !== '(idle)').sort((a, b) => b[1] - a[1]).slice(0, count);
for (const [key, n] of rows) console.log(`${((100 * n) / busy).toFixed(1).padStart(5)} %  ${key}`);
