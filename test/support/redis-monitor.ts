import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';

/** One command as MONITOR reports it: its words, and `lua` as source when a script ran it. */
export interface MonitoredCommand {
  args: string[];
  source: string;
}

/**
 * Records what a Redis server executes, through MONITOR.
 *
 * MONITOR delivers commands in the order the server ran them, but later than the caller's own reply.
 * A fixed sleep before reading the feed lost a command on a loaded CI machine; `settle()` instead sends
 * a marker on a connection of its own and waits until the feed shows it, so every command the server
 * ran before the marker has been delivered.
 */
export class RedisMonitor {
  readonly commands: MonitoredCommand[] = [];
  private readonly waiters = new Map<string, () => void>();

  private constructor(
    private readonly feed: Redis,
    private readonly sender: Redis,
  ) {
    feed.on('monitor', (_time: string, args: string[], source: string) => {
      if (args[0]?.toLowerCase() === 'echo' && args[1]?.startsWith('monitor-marker-')) {
        this.waiters.get(args[1])?.();
        return;
      }
      this.commands.push({ args, source });
    });
  }

  static async start(url: string): Promise<RedisMonitor> {
    const sender = new Redis(url);
    const feed = await sender.monitor(); // ioredis opens the MONITOR connection apart from `sender`
    return new RedisMonitor(feed, sender);
  }

  /** Resolves once every command the server ran before this call is in `commands`. */
  async settle(timeoutMs = 10_000): Promise<void> {
    const marker = `monitor-marker-${randomUUID()}`;
    let timer: NodeJS.Timeout | undefined;
    const seen = new Promise<void>((resolve, reject) => {
      timer = setTimeout(
        () => reject(new Error(`MONITOR did not deliver ${marker} in ${timeoutMs} ms`)),
        timeoutMs,
      );
      this.waiters.set(marker, resolve);
    });
    try {
      await this.sender.echo(marker);
      await seen;
    } finally {
      // Also when ECHO failed: no timer left to reject a promise nobody awaits.
      clearTimeout(timer);
      this.waiters.delete(marker);
    }
  }

  /** Forgets what was recorded so far (after settling, so nothing earlier arrives late). */
  async reset(): Promise<void> {
    await this.settle();
    this.commands.length = 0;
  }

  stop(): void {
    this.feed.disconnect();
    this.sender.disconnect();
  }
}
