/**
 * The fleet as deployed: a real nginx edge (the shipped template) balancing round-robin over two app
 * instances on one real redis-server (STORE=redis). The client only ever talks to the edge, so
 * consecutive requests land on different instances: a login, its use and its logout, a challenge,
 * concurrent verifications of one line, and a sessioned MCP client all behave as on one instance.
 * The two upstream servers go in as PASSPORT_API_UPSTREAM's list, rendered as the image's entrypoint does.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { bearer, login, mintPassport, newKey } from '../support/passports.js';
import { renderEdgeTemplate } from '../support/nginx-edge-template.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { freePort, startTestApp, type TestApp } from '../support/test-app.js';
import { holaLine } from '../verify/hola-lines.js';

const NGINX = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((candidate) => existsSync(candidate));

let redis: RedisServer;
let dataDir: string;
let edgeDir: string;
let nginx: ChildProcess;
let edge: string;
const instances: TestApp[] = [];
/** Requests each instance received (a listener on its HTTP server), to show the edge spreads them. */
const served: number[] = [];

async function startNginx(upstreams: string[], port: number): Promise<void> {
  if (!NGINX)
    throw new Error("nginx is missing: install Debian's 'nginx' package (scripts/ensure-test-deps.sh does)");
  edgeDir = await mkdtemp(path.join(tmpdir(), 'passport-fleet-edge-'));
  const rendered = await renderEdgeTemplate(upstreams.join(','), port);
  await writeFile(path.join(edgeDir, 'edge.conf'), rendered);
  const kinds = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'];
  for (const kind of kinds) await mkdir(path.join(edgeDir, kind));
  await writeFile(
    path.join(edgeDir, 'nginx.conf'),
    `${process.getuid?.() === 0 ? 'user root;' : ''} daemon off; worker_processes 1; pid ${edgeDir}/nginx.pid;
     error_log ${edgeDir}/error.log warn; events { worker_connections 1024; }
     http { access_log off; ${kinds.map((k) => `${k}_temp_path ${path.join(edgeDir, k)};`).join(' ')} include ${edgeDir}/edge.conf; }`,
  );
  nginx = spawn(NGINX, ['-p', edgeDir, '-c', path.join(edgeDir, 'nginx.conf')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  nginx.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (nginx.exitCode !== null) throw new Error(`nginx exited: ${stderr}`);
    try {
      await fetch(`${edge}/health`);
      return;
    } catch {
      if (Date.now() > deadline) throw new Error(`nginx did not come up: ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

beforeAll(async () => {
  redis = await startRedisServer();
  dataDir = await mkdtemp(path.join(tmpdir(), 'passport-fleet-'));
  const edgePort = await freePort();
  edge = `http://127.0.0.1:${edgePort}`;
  for (let i = 0; i < 2; i++) {
    instances.push(
      await startTestApp({
        STORE: 'redis',
        REDIS_URL: redis.url,
        DATA_DIR: dataDir,
        PUBLIC_BASE_URL: edge,
        TRUSTED_PROXIES: '127.0.0.1/32',
      }),
    );
  }
  instances.forEach((t, i) => {
    served[i] = 0;
    t.app.getHttpServer().on('request', () => served[i]++);
  });
  await startNginx(
    instances.map((t) => new URL(t.baseUrl).host),
    edgePort,
  );
});
beforeEach(() => served.fill(0));
afterEach(() => {
  // Every scenario reached both instances.
  expect(served.every((n) => n > 0)).toBe(true);
});
afterAll(async () => {
  if (nginx && nginx.exitCode === null) {
    const exited = new Promise((resolve) => nginx.once('exit', resolve));
    nginx.kill('SIGQUIT');
    await exited;
  }
  for (const t of instances) await t.close();
  await redis?.stop();
  await rm(dataDir, { recursive: true, force: true });
  if (edgeDir) await rm(edgeDir, { recursive: true, force: true });
});

/** The edge as a TestApp-like target for the helpers that build lines and mint passports. */
const viaEdge = (): TestApp => ({ ...instances[0], baseUrl: edge });

async function postJson(route: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${edge}${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

it('round-robin through the edge: a login is honoured by every instance, a logout by every instance at once', async () => {
  const key = newKey();
  const { tokenId } = await mintPassport(viaEdge(), { owner: key });
  const result = await login(edge, { identifier: tokenId, key });
  expect(result.status).toBe(200);
  const jwt = result.body.jwt_token as string;
  for (let i = 0; i < 4; i++) {
    expect((await fetch(`${edge}/api/me/identity`, { headers: bearer(jwt) })).status).toBe(200);
  }
  expect((await postJson('/api/logout', {}, bearer(jwt))).status).toBe(200);
  for (let i = 0; i < 4; i++) {
    expect((await fetch(`${edge}/api/me/identity`, { headers: bearer(jwt) })).status).toBe(401);
  }
  // The same challenge again (wherever it lands) is refused.
  expect((await login(edge, { identifier: tokenId, key, challenge: result.challenge })).status).toBe(401);
});

it('50 concurrent verifications of one line through the edge: exactly one verified', async () => {
  const key = newKey();
  const { tokenId } = await mintPassport(viaEdge(), { owner: key });
  const line = holaLine(viaEdge(), { sender: tokenId, signer: key.signer });
  const results = await Promise.all(
    Array.from({ length: 50 }, () => postJson('/api/identity/verify', { hola: line })),
  );
  expect(results.map((r) => r.status)).toEqual(Array(50).fill(200));
  expect(results.filter((r) => r.body.verified === true)).toHaveLength(1);
});

it('a sessioned MCP client through the edge lists, calls, reads and deletes its session', async () => {
  const client = new Client({ name: 'edge-fleet', version: '1' });
  const transport = new StreamableHTTPClientTransport(new URL(`${edge}/mcp`));
  await client.connect(transport);
  for (let i = 0; i < 3; i++) expect((await client.listTools()).tools).toHaveLength(2);
  const called = (await client.callTool({ name: 'get_resource', arguments: { uri: 'doc:discovery' } })) as {
    isError?: boolean;
  };
  expect(called.isError ?? false).toBe(false);
  expect((await client.readResource({ uri: 'doc:discovery' })).contents[0]).toMatchObject({
    uri: 'doc:discovery',
  });
  const id = transport.sessionId as string;
  await transport.terminateSession();
  await client.close();
  for (let i = 0; i < 2; i++) {
    const res = await fetch(`${edge}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': id,
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(404);
  }
});
