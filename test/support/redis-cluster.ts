/**
 * A real Redis Cluster for tests: three masters (no replicas), each a `redis-server` on its own free
 * loopback port and cluster-bus port, no persistence, `maxmemory-policy noeviction`. The slots are
 * split in three with `CLUSTER ADDSLOTSRANGE` and the nodes introduced with `CLUSTER MEET` (no
 * redis-cli needed); the cluster is handed over once every node says `cluster_state:ok`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cluster, Redis } from 'ioredis';
import { freePort } from './test-app.js';

export interface RedisClusterNode {
  readonly port: number;
  /** The redis-server process (SIGSTOP it to model a master that stops answering). */
  readonly pid: number | undefined;
  /** A plain connection to this node alone (CONFIG SET, INFO, CLUSTER …): the caller disconnects it. */
  connect(): Redis;
}

export interface RedisCluster {
  readonly nodes: readonly RedisClusterNode[];
  /** A Cluster client seeded with the first node, as an integrator would make one. */
  client(): Cluster;
  /** The node holding the slot of `key` (hash tags honoured). */
  nodeOf(key: string): Promise<RedisClusterNode>;
  stop(): Promise<void>;
}

const BINARY = process.env.REDIS_SERVER_BIN ?? 'redis-server';
const SLOTS = 16_384;

export async function startRedisCluster(masters = 3): Promise<RedisCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'passport-redis-cluster-'));
  const children: ChildProcess[] = [];
  const nodes: RedisClusterNode[] = [];
  const busPorts: number[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(
      children.splice(0).map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGKILL');
          }),
      ),
    );
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < masters; i++) {
      const nodeDir = join(dir, String(i));
      mkdirSync(nodeDir);
      // A free port found here may be taken before redis-server binds it (another test's server, an
      // outgoing connection): a node that exits, or a port that answers as no cluster node, is started
      // again on new ports.
      for (let attempt = 1; ; attempt++) {
        const port = await freePort();
        const busPort = await freePort();
        const child = spawn(
          BINARY,
          [
            '--port',
            String(port),
            '--bind',
            '127.0.0.1',
            '--dir',
            nodeDir,
            '--cluster-enabled',
            'yes',
            '--cluster-config-file',
            join(nodeDir, 'nodes.conf'),
            '--cluster-port',
            String(busPort),
            '--cluster-node-timeout',
            '5000',
            '--save',
            '',
            '--appendonly',
            'no',
            '--maxmemory-policy',
            'noeviction',
            '--loglevel',
            'warning',
          ],
          { stdio: ['ignore', 'ignore', 'inherit'] },
        );
        const spawnFailed = new Promise<Error>((resolve) => child.once('error', resolve));
        const node: RedisClusterNode = {
          port,
          pid: child.pid,
          connect: () => new Redis(port, '127.0.0.1', { maxRetriesPerRequest: 1 }),
        };
        const started = await Promise.race([
          answering(node, child).then(
            () => null,
            (error: Error) => error,
          ),
          spawnFailed.then(
            (error) => new Error(`cannot start ${BINARY} (${error.message}): is redis-server installed?`),
          ),
        ]);
        if (started === null) {
          children.push(child);
          busPorts.push(busPort);
          nodes.push(node);
          break;
        }
        child.kill('SIGKILL');
        if (attempt === 3 || started.message.startsWith('cannot start')) throw started;
      }
    }
    const admin = nodes.map((node) => node.connect());
    try {
      const share = Math.ceil(SLOTS / masters);
      await Promise.all(
        admin.map((client, i) =>
          client.call('CLUSTER', 'ADDSLOTSRANGE', i * share, Math.min(SLOTS, (i + 1) * share) - 1),
        ),
      );
      for (let i = 1; i < masters; i++)
        await admin[0].call('CLUSTER', 'MEET', '127.0.0.1', nodes[i].port, busPorts[i]);
      const deadline = Date.now() + 30_000;
      for (;;) {
        const states = await Promise.all(admin.map((client) => client.call('CLUSTER', 'INFO')));
        if (
          states.every(
            (info) =>
              /cluster_state:ok/.test(String(info)) &&
              new RegExp(`cluster_known_nodes:${masters}\\b`).test(String(info)),
          )
        )
          break;
        if (Date.now() > deadline) throw new Error(`the cluster did not form: ${String(states[0])}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    } finally {
      for (const client of admin) client.disconnect();
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    nodes,
    client: () =>
      new Cluster([{ host: '127.0.0.1', port: nodes[0].port }], {
        redisOptions: { maxRetriesPerRequest: 1, commandTimeout: 2000 },
        slotsRefreshTimeout: 2000,
      }),
    async nodeOf(key: string) {
      const probe = nodes[0].connect();
      try {
        const slot = Number(await probe.call('CLUSTER', 'KEYSLOT', key));
        return nodes[Math.min(masters - 1, Math.floor(slot / Math.ceil(SLOTS / masters)))];
      } finally {
        probe.disconnect();
      }
    },
    stop,
  };
}

async function answering(node: RedisClusterNode, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`redis-server exited (code ${child.exitCode})`);
    const client = new Redis(node.port, '127.0.0.1', {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    let info: [string, string] | undefined;
    try {
      await client.connect();
      info = [String(await client.info('server')), String(await client.info('cluster'))];
    } catch {
      // not listening yet
    } finally {
      client.disconnect();
    }
    if (info) {
      // This node, not another server that took the port: this child's process, in cluster mode.
      if (
        !new RegExp(`^process_id:${child.pid}\\b`, 'm').test(info[0]) ||
        !/^cluster_enabled:1/m.test(info[1])
      )
        throw new Error(`port ${node.port} answers as another server`);
      return;
    }
    if (Date.now() > deadline) throw new Error(`redis-server did not listen on ${node.port}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
