/**
 * A real `redis-server` for tests: its own free loopback port, a temp working dir, no persistence
 * (no RDB snapshots, no AOF), stopped (and its dir removed) by `stop()`. `kill()` and `restart()` model
 * an outage and a recovery on the same port, so clients configured with its URL reconnect by themselves.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from './test-app.js';

export interface RedisServer {
  readonly port: number;
  readonly url: string;
  /** The running server's process id (undefined while killed), e.g. to read its CPU time in /proc. */
  readonly pid: number | undefined;
  /** Stops the server abruptly (SIGKILL), as a crash or a lost host would. */
  kill(): Promise<void>;
  /** Starts it again on the same port (empty: nothing persists). */
  restart(): Promise<void>;
  /** Pauses (SIGSTOP) / resumes (SIGCONT) the process: a Redis that accepts bytes but never answers. */
  pause(): void;
  resume(): void;
  /** Deletes every key (FLUSHALL): a data loss, which instances connected to it notice. */
  flush(): Promise<void>;
  /**
   * Deletes every key but the replay history marker, generation and the instances' own generations
   * (`*{replay}:history`, `*{replay}:generation`, `*{replay}:gen:*`): resets the state tests share
   * (buckets, sessions) without looking like a data loss to the instances.
   */
  clearState(): Promise<void>;
  stop(): Promise<void>;
}

const BINARY = process.env.REDIS_SERVER_BIN ?? 'redis-server';

export async function startRedisServer(): Promise<RedisServer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'passport-redis-'));
  let child: ChildProcess | null = null;

  const launch = async (): Promise<void> => {
    const proc = spawn(
      BINARY,
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--dir',
        dir,
        '--save',
        '',
        '--appendonly',
        'no',
        '--protected-mode',
        'yes',
        '--loglevel',
        'warning',
      ],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    child = proc;
    await waitUntilListening(port, proc);
  };
  const kill = async (): Promise<void> => {
    const proc = child;
    child = null;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      proc.once('exit', () => resolve());
      proc.kill('SIGKILL');
    });
  };

  await launch();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    get pid() {
      return (child as ChildProcess | null)?.pid;
    },
    kill,
    restart: async () => {
      await kill();
      await launch();
    },
    pause: () => void child?.kill('SIGSTOP'),
    resume: () => void child?.kill('SIGCONT'),
    flush: () => sendCommand(port, 'FLUSHALL'),
    clearState: async () => {
      const client = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0 });
      try {
        await client.connect();
        await client.eval(
          "for _, k in ipairs(redis.call('KEYS', '*')) do if not (string.find(k, '{replay}:history', 1, true) or string.find(k, '{replay}:generation', 1, true) or string.find(k, '{replay}:gen:', 1, true)) then redis.call('DEL', k) end end",
          0,
        );
      } finally {
        client.disconnect();
      }
    },
    stop: async () => {
      child?.kill('SIGCONT');
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function waitUntilListening(port: number, proc: ChildProcess): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`redis-server exited (code ${proc.exitCode})`);
    if (await answersPing(port)) return;
    if (Date.now() > deadline) throw new Error(`redis-server did not listen on ${port}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
  });
}

function sendCommand(port: number, command: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    socket.setTimeout(2000, () => {
      socket.destroy();
      reject(new Error(`${command} timed out`));
    });
    socket.once('error', reject);
    socket.once('connect', () => socket.write(`${command}\r\n`));
    socket.once('data', (data) => {
      socket.destroy();
      if (data.toString().startsWith('+OK')) resolve();
      else reject(new Error(`${command}: ${data.toString().trim()}`));
    });
  });
}
