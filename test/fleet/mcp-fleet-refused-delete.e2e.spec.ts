/**
 * A DELETE /mcp refused 400 for its MCP-Protocol-Version (a revision the transport does not serve) ends
 * nothing, on one instance and on a fleet alike: its client is told the request was bad, and a retry
 * with a good header must find the session. A probe: on STORE=redis the session was removed from the
 * fleet directory before the version was checked, so the 400 had ended it (the next request 404), while
 * one instance answered the same 400 and kept it.
 */
import { INITIALIZE, MCP_HEADERS, probe } from '../mcp/support/mcp-probe.js';
import { startTestAppFleet, type TestAppFleet } from '../support/test-app-fleet.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let fleetApps: TestAppFleet;
let fleet: TestApp[];
let single: TestApp;
let publicBaseUrl: string;

beforeAll(async () => {
  fleetApps = await startTestAppFleet(2);
  ({ instances: fleet, publicBaseUrl } = fleetApps);
  single = await startTestApp();
});
afterAll(async () => {
  await fleetApps?.close();
  await single?.close();
});

async function openSession(baseUrl: string, host: string): Promise<Record<string, string>> {
  const response = await fetch(`${baseUrl}/mcp`, {
    method: 'POST',
    headers: { ...MCP_HEADERS, host },
    body: JSON.stringify(INITIALIZE),
  });
  await response.text();
  expect(response.status).toBe(200);
  return { host, 'mcp-session-id': response.headers.get('mcp-session-id') ?? '' };
}

const PING = { jsonrpc: '2.0', id: 2, method: 'ping' };

it.each([
  ['one instance', () => [single.baseUrl, single.baseUrl, new URL(single.baseUrl).host]],
  [
    'a fleet (DELETE on the other instance)',
    () => [fleet[0].baseUrl, fleet[1].baseUrl, new URL(publicBaseUrl).host],
  ],
])('%s: a DELETE answered 400 for its protocol version leaves the session live', async (_, where) => {
  const [opener, deleter, host] = where();
  const session = await openSession(opener, host);
  const refused = await probe(deleter, {
    method: 'DELETE',
    headers: { ...session, 'mcp-protocol-version': '1999-01-01' },
  });
  expect(refused.status).toBe(400);
  expect(refused.body).toMatchObject({ error: { code: -32000 } });
  const after = await probe(opener, {
    headers: { ...session, 'mcp-protocol-version': '2025-11-25' },
    body: PING,
  });
  expect(after.status).toBe(200);
  const ended = await probe(deleter, {
    method: 'DELETE',
    headers: { ...session, 'mcp-protocol-version': '2025-11-25' },
  });
  expect(ended.status).toBe(200);
});
