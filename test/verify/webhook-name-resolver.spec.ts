/**
 * Webhook names are resolved by DNS queries on the event loop, never by getaddrinfo on libuv's thread
 * pool (apps/api/src/webhooks/webhook-name.resolver.ts). A probe: a passport whose webhook name's server
 * never answers held the pool (one thread under scripts/serve.sh on 2 cores) and stalled every verify
 * and login for 30 s. Against a name server on a loopback port started here.
 */
import { spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import {
  createWebhookNameResolver,
  type WebhookNameResolver,
} from '../../apps/api/src/webhooks/webhook-name.resolver.js';
import { WEBHOOK_TIMEOUT_MS } from '../../apps/api/src/webhooks/webhook-dispatcher.js';
import { startLoopbackNameServer, type LoopbackNameServer } from '../support/loopback-name-server.js';
import { sendOneEvent, testDispatcher } from '../support/webhook-dispatch.js';

/** `promise`'s value, or `late` when it has not settled within `ms`. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | 'late'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

describe('webhook name resolution', () => {
  let names: LoopbackNameServer;
  let receiver: Server;
  let receiverPort: number;
  const arrived: string[] = [];
  beforeAll(async () => {
    names = await startLoopbackNameServer({
      'both.hook.test': { a: ['203.0.113.7'], aaaa: ['2001:db8::7'] },
      'v6.hook.test': { aaaa: ['2001:db8::8'] },
      'loop.hook.test': { a: ['127.0.0.1'] },
      'silent.hook.test': 'silent',
      'gone.hook.test': 'nxdomain',
    });
    receiver = createServer((req, res) => {
      arrived.push(`${req.method} ${req.url}`);
      req.resume();
      res.end();
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverPort = (receiver.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await names.close();
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });

  const resolver = () => createWebhookNameResolver({ servers: [names.address] });

  it('answers the A and AAAA records, IPv4 first, and a trailing dot or capitals change nothing', async () => {
    await expect(resolver()('both.hook.test', 2000)).resolves.toEqual(['203.0.113.7', '2001:db8::7']);
    await expect(resolver()('BOTH.hook.test.', 2000)).resolves.toEqual(['203.0.113.7', '2001:db8::7']);
    await expect(resolver()('v6.hook.test', 2000)).resolves.toEqual(['2001:db8::8']);
  });

  it('rejects a name that does not exist', async () => {
    await expect(resolver()('gone.hook.test', 2000)).rejects.toThrow();
  });

  it('localhost and names under .localhost are loopback without a question to the name server', async () => {
    const before = names.questions.length;
    for (const name of ['localhost', 'LOCALHOST.', 'agent.localhost'])
      await expect(resolver()(name, 2000)).resolves.toEqual(['127.0.0.1', '::1']);
    expect(names.questions.length).toBe(before);
  });

  it('a name server that never answers is given up at the deadline', async () => {
    const outcome = resolver()('silent.hook.test', 300).then(
      () => 'resolved',
      () => 'given up',
    );
    expect(await within(outcome, 3000)).toBe('given up');
    expect(names.questions).toContain('A silent.hook.test');
  });

  it('hung lookups leave the thread pool free (a pool of one thread, as on 2 cores)', () => {
    // A child process, so that UV_THREADPOOL_SIZE applies: three lookups of the silent name, then a
    // pool job (pbkdf2); the pool job must finish while the lookups still wait.
    const script = `
      import { pbkdf2 } from 'node:crypto';
      import { createWebhookNameResolver } from './apps/api/src/webhooks/webhook-name.resolver.ts';
      const resolve = createWebhookNameResolver({ servers: [${JSON.stringify(names.address)}] });
      const events = [];
      const lookups = [1, 2, 3].map(() => resolve('silent.hook.test', 3000).then(() => events.push('lookup resolved'), () => events.push('lookup given up')));
      await new Promise((done) => setTimeout(done, 200));
      pbkdf2('secret', 'salt', 1, 32, 'sha256', () => events.push('pool job done'));
      await Promise.all(lookups);
      console.log(JSON.stringify(events));
    `;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: process.cwd(),
      env: { ...process.env, UV_THREADPOOL_SIZE: '1' },
      encoding: 'utf8',
      timeout: 20000,
    });
    expect(child.stderr).toBe('');
    expect(JSON.parse(child.stdout)).toEqual([
      'pool job done',
      'lookup given up',
      'lookup given up',
      'lookup given up',
    ]);
  }, 30000);

  describe('in the dispatcher', () => {
    const send = (
      webhookUrl: string,
      allowLoopback = false,
      resolveName: WebhookNameResolver = createWebhookNameResolver({ servers: [names.address] }),
    ) => sendOneEvent(testDispatcher(resolveName, allowLoopback), webhookUrl);

    it('a name server that never answers fails the deliveries within the one 5 s bound', async () => {
      expect(
        await within(send(`http://silent.hook.test:${receiverPort}`), WEBHOOK_TIMEOUT_MS + 1500),
      ).toEqual(['failed dns_lookup_failed', 'failed dns_lookup_failed']);
    }, 15000);

    it('a name resolving to loopback is refused, and delivered only under the test setting', async () => {
      expect(await send(`http://loop.hook.test:${receiverPort}`)).toEqual([
        'refused address_not_allowed:loopback',
      ]);
      expect(arrived).toEqual([]);
      expect(await send(`http://loop.hook.test:${receiverPort}`, true)).toEqual([
        'delivered 200',
        'delivered 200',
      ]);
      expect(arrived).toEqual(['POST /hooks/agent', 'POST /hooks/wake']);
    });

    it('a slow lookup and a silent receiver together take no more than the one 5 s bound', async () => {
      // A probe: a name answered just inside the lookup's 5 s, then a receiver that reads and never
      // answers, held the delivery for about 10 s (the request had a fresh 5 s of its own).
      const silent = createServer((req) => req.resume());
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      const port = (silent.address() as AddressInfo).port;
      const slowName: WebhookNameResolver = () =>
        new Promise((resolve) => setTimeout(() => resolve(['127.0.0.1']), WEBHOOK_TIMEOUT_MS - 1000));
      try {
        expect(
          await within(send(`http://slow.hook.test:${port}`, true, slowName), WEBHOOK_TIMEOUT_MS + 1000),
        ).toEqual(['failed timeout', 'failed timeout']);
      } finally {
        silent.closeAllConnections();
        await new Promise<void>((resolve) => silent.close(() => resolve()));
      }
    }, 15000);
  });
});
