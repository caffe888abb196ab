/**
 * Load of fresh valid HOLA lines on `POST /api/identity/verify`, shared by the verify and memory
 * benches: a passport minted into the app's ledger signs lines for the app's host, and wrk (C; Debian's
 * package, which scripts/bench.sh installs) sends each line once (bench/support/verify-lines.lua walks
 * the file), so every request is the verified path.
 */
import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildHolaLine } from '@passport/core';
import { mintBenchPassports, ROOT, type BuiltApp } from './built-app.js';
import { parseWrk, type WrkFigures } from './wrk-output.js';

export type { WrkFigures };

export interface VerifyLoad {
  /** `n` JSON bodies `{"hola": ...}`, each a fresh line signed now. */
  makeLines(n: number): string[];
  /** wrk over `lines` for `seconds` (pinned to `wrkCpus` with taskset when given). */
  run(
    lines: readonly string[],
    seconds: number,
    options?: { connections?: number; wrkCpus?: string },
  ): WrkFigures;
  /** The same without blocking this process (to sample the server while wrk runs). */
  start(lines: readonly string[], seconds: number, options?: { connections?: number }): Promise<WrkFigures>;
}

/** Mints a passport into `app` and checks that one of its lines verifies. */
export async function verifyLoad(app: BuiltApp): Promise<VerifyLoad> {
  const [{ tokenId, signer }] = await mintBenchPassports(app, 1);
  const serviceHost = new URL(app.base).host;
  const makeLines = (n: number) =>
    Array.from({ length: n }, () =>
      JSON.stringify({
        hola: buildHolaLine({
          senderTokenId: tokenId,
          timestamp: new Date().toISOString(),
          nonceHex: randomBytes(16).toString('hex').toUpperCase(),
          serviceHost,
          signer,
        }),
      }),
    );
  const check = await fetch(`${app.base}/api/identity/verify`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: makeLines(1)[0],
  });
  const checked = (await check.json()) as { verified: boolean; failureReasons: string[] };
  if (!checked.verified) throw new Error(`a fresh line did not verify: ${JSON.stringify(checked)}`);

  const linesFile = path.join(app.dataDir, 'lines.jsonl');
  const command = (lines: readonly string[], seconds: number, connections = 50, wrkCpus?: string) => {
    writeFileSync(linesFile, `${lines.join('\n')}\n`);
    const wrkArgs = [
      '-t1',
      `-c${connections}`,
      `-d${seconds}s`,
      '--latency',
      '-s',
      path.join(ROOT, 'bench/support/verify-lines.lua'),
      app.base,
    ];
    return {
      file: wrkCpus ? 'taskset' : 'wrk',
      args: wrkCpus ? ['-c', wrkCpus, 'wrk', ...wrkArgs] : wrkArgs,
      env: { ...process.env, LINES_FILE: linesFile },
    };
  };
  return {
    makeLines,
    run(lines, seconds, { connections, wrkCpus } = {}) {
      const { file, args, env } = command(lines, seconds, connections, wrkCpus);
      return parseWrk(execFileSync(file, args, { env }).toString());
    },
    start(lines, seconds, { connections } = {}) {
      const { file, args, env } = command(lines, seconds, connections);
      return new Promise((resolve, reject) =>
        execFile(file, args, { env }, (error, stdout) => (error ? reject(error) : resolve(parseWrk(stdout)))),
      );
    },
  };
}
