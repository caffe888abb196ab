/**
 * MCP batches on a fleet (STORE=redis, two instances on a real redis-server): concurrent batches from one
 * address share the /mcp burst and the tool-call rate. A probe: taken one token at a time, the batches'
 * takes interleaved on Redis, each batch ran short partway, the whole burst (and the minute's tool calls)
 * was spent and nothing was served. A batch's tokens are now one take, all or none.
 */
import { INITIALIZE, MCP_HEADERS, probe, requestFrom } from '../mcp/support/mcp-probe.js';
import { startTestAppFleet, type TestAppFleet } from '../support/test-app-fleet.js';
import { type TestApp } from '../support/test-app.js';

let fleet: TestAppFleet;
let instances: TestApp[];
let publicBaseUrl: string;

beforeAll(async () => {
  fleet = await startTestAppFleet(2);
  ({ instances, publicBaseUrl } = fleet);
});
afterAll(async () => fleet?.close());

/** An initialize on the first instance; the session id, for both. */
async function openSession(): Promise<Record<string, string>> {
  const response = await fetch(`${instances[0].baseUrl}/mcp`, {
    method: 'POST',
    headers: { ...MCP_HEADERS, host: new URL(publicBaseUrl).host },
    body: JSON.stringify(INITIALIZE),
  });
  await response.text();
  return {
    host: new URL(publicBaseUrl).host,
    'mcp-session-id': response.headers.get('mcp-session-id') ?? '',
    'mcp-protocol-version': '2025-03-26',
  };
}

const pings = (n: number, from: number) =>
  Array.from({ length: n }, (_, i) => ({ jsonrpc: '2.0', id: from + i, method: 'ping' }));

// First in this file: it spends five tokens of the address's burst (200), which the next test counts on.
it('a batch to a session ended on the other instance is 404 having spent one token, not a batch of them', async () => {
  const headers = await openSession();
  const ended = await fetch(`${instances[1].baseUrl}/mcp`, { method: 'DELETE', headers });
  expect(ended.status).toBe(200);
  // Three batches of 100: 297 tokens more than one each, past the burst by the second, were they charged.
  for (let round = 0; round < 3; round++) {
    const refused = await probe(instances[round % 2].baseUrl, { headers, body: pings(100, round * 100) });
    expect(refused.status).toBe(404);
  }
});

it('six concurrent batches of 50 over both instances: those the burst holds are served, the rest cost one token each', async () => {
  const headers = await openSession();
  const answers = await Promise.all(
    Array.from({ length: 6 }, (_, i) =>
      probe(instances[i % 2].baseUrl, { headers, body: pings(50, i * 100) }),
    ),
  );
  const served = answers.filter((a) => a.status === 200).length;
  const refused = answers.filter((a) => a.status === 429);
  // 199 tokens after the initialize: three batches of 50, and a fourth only if ~1 s of refill (18 a
  // second) came in while they ran.
  expect(served).toBeGreaterThanOrEqual(3);
  expect(served + refused.length).toBe(6);
  for (const a of refused)
    expect(a.body).toMatchObject({
      error: { code: -32000, message: expect.stringContaining('a batch costs') },
    });
  // The refused batches took one token each: the bucket is not drained.
  const single = await probe(instances[1].baseUrl, {
    headers,
    body: { jsonrpc: '2.0', id: 'p', method: 'ping' },
  });
  expect(single.status).toBe(200);
});

// A probe (after b0d9a28): on a fleet too, batches refused for what they hold were charged a token per
// message. Sent from an address of their own (127.0.0.21), whose burst the tests above have not touched.
it('batches refused for their params or their protocol version cost one token each on either instance', async () => {
  const headers = await openSession();
  const invalidParams = [
    { jsonrpc: '2.0', id: 'bad', method: 'resources/read', params: {} },
    ...pings(99, 0),
  ];
  for (let round = 0; round < 3; round++) {
    const base = instances[round % 2].baseUrl;
    const params = await requestFrom(base, '127.0.0.21', { method: 'POST', headers, body: invalidParams });
    expect(params.status).toBe(200);
    expect(params.text).toContain('-32602');
    const version = await requestFrom(base, '127.0.0.21', {
      method: 'POST',
      headers: { ...headers, 'mcp-protocol-version': '1999-01-01' },
      body: pings(100, 0),
    });
    expect(version.status).toBe(400);
  }
  // Six refused batches of 100 were 600 tokens, three bursts' worth: the corrected batch is still served.
  const served = await requestFrom(instances[1].baseUrl, '127.0.0.21', {
    method: 'POST',
    headers,
    body: pings(100, 0),
  });
  expect(served.status).toBe(200);
});
