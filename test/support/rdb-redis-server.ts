/**
 * A redis-server with RDB persistence whose snapshots the test takes (SAVE), no AOF (Redis's own default
 * is RDB), in `dir`, on `port`: started, and killed and started again from its snapshot.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export class RdbRedisServer {
  private child: ChildProcess | null = null;

  constructor(
    readonly port: number,
    private readonly dir: string,
  ) {}

  /** Starts the server (loading `dump.rdb` when there is one) and waits until it answers PING. */
  async start(): Promise<void> {
    this.child = spawn(
      'redis-server',
      [
        '--port',
        String(this.port),
        '--bind',
        '127.0.0.1',
        '--dir',
        this.dir,
        '--save',
        '',
        '--appendonly',
        'no',
      ],
      { stdio: 'ignore' },
    );
    for (let i = 0; i < 100; i++) {
      const probe = new Redis(this.port, '127.0.0.1', {
        lazyConnect: true,
        maxRetriesPerRequest: 0,
        retryStrategy: () => null,
      });
      try {
        await probe.connect();
        if ((await probe.ping()) === 'PONG') return void probe.disconnect();
      } catch {
        probe.disconnect();
      }
      await sleep(50);
    }
    throw new Error('redis-server did not start');
  }

  /** kill -9, then a start from the last snapshot. */
  async restartFromSnapshot(): Promise<void> {
    await this.kill();
    await this.start();
  }

  async kill(): Promise<void> {
    const child = this.child;
    if (child === null || child.exitCode !== null) return;
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
  }
}
