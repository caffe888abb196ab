/**
 * Two POSTs of one local session whose requests share an id while the first is in progress. The v1
 * transport answers a request on its POST by looking the id up in one map per session: a probe had the
 * second POST take over the first's entry, so the first was never answered (its connection held open by
 * keep-alives until the session was deleted, 512 s and more) and the second got the first's answer.
 * The second is now refused with 409; each answer that comes is its own request's.
 */
import { mintPassport } from '../support/passports.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { INITIALIZE, MCP_HEADERS, openRawSession, requestFrom } from './support/mcp-probe.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ STORE: 'memory' });
});
afterAll(async () => t.close());

const readWithId7 = (uri: string) => ({ jsonrpc: '2.0', id: 7, method: 'resources/read', params: { uri } });

async function post(sessionId: string, body: unknown) {
  const response = await fetch(`${t.baseUrl}/mcp`, {
    method: 'POST',
    headers: { ...MCP_HEADERS, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify(body),
    // A POST left unanswered would otherwise hang the test until Jest's own timeout.
    signal: AbortSignal.timeout(5000),
  });
  return { status: response.status, text: await response.text() };
}

it('of concurrent reads sharing an id on one session, each is answered: its own document, or 409', async () => {
  const sessionId = await openRawSession(t.baseUrl);
  // Fresh passports: the first read of each waits on the ledger, so the reads overlap.
  const passports = await Promise.all([0, 1, 2, 3, 4].map(() => mintPassport(t)));
  const answers = await Promise.all(
    passports.map((p) => post(sessionId, readWithId7(`did:resolve:${p.tokenId}`))),
  );
  let served = 0;
  for (const [i, answer] of answers.entries()) {
    if (answer.status === 409) {
      expect(JSON.parse(answer.text)).toEqual({
        jsonrpc: '2.0',
        error: {
          code: -32600,
          message:
            'Invalid Request: id 7 belongs to a request of this session still in progress; use another id',
        },
        id: null,
      });
      continue;
    }
    expect(answer.status).toBe(200);
    served++;
    // Its own passport's document, and no other's.
    expect(answer.text).toContain(passports[i].tokenId);
    for (const [j, other] of passports.entries())
      if (j !== i) expect(answer.text).not.toContain(other.tokenId);
  }
  expect(served).toBeGreaterThanOrEqual(1);
  // Once answered, the id is free again on that session.
  const again = await post(sessionId, readWithId7(`did:resolve:${passports[0].tokenId}`));
  expect(again.status).toBe(200);
  expect(again.text).toContain(passports[0].tokenId);
});

it('the same id on two sessions is no conflict', async () => {
  const [a, b] = await Promise.all([openRawSession(t.baseUrl), openRawSession(t.baseUrl)]);
  const passport = await mintPassport(t);
  const uri = `did:resolve:${passport.tokenId}`;
  const answers = await Promise.all([post(a, readWithId7(uri)), post(b, readWithId7(uri))]);
  expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
});

// A POST refused for a rate after its ids were claimed frees them with its answer: a client whose read was
// refused 429 may send another request with that id (else every later request reusing it was 409).
it('a request refused 429 for the tool-call rate leaves its id free', async () => {
  const from = '127.0.0.9'; // a bucket of its own
  const init = await requestFrom(t.baseUrl, from, { method: 'POST', body: INITIALIZE });
  const sessionId = String(init.headers['mcp-session-id']);
  const send = (body: unknown) =>
    requestFrom(t.baseUrl, from, {
      method: 'POST',
      headers: { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' },
      body,
    });
  const read = (id: number) => ({
    jsonrpc: '2.0',
    id,
    method: 'resources/read',
    params: { uri: 'doc:discovery' },
  });
  // The minute's 100 tool calls and reads, in batches of 10.
  for (let batch = 0; batch < 10; batch++) {
    const answer = await send(Array.from({ length: 10 }, (_, i) => read(1000 + batch * 10 + i)));
    expect(answer.status).toBe(200);
  }
  const refused = await send(read(7));
  expect(refused.status).toBe(429);
  expect(JSON.parse(refused.text)).toMatchObject({ error: { message: 'MCP tool-call rate limit exceeded' } });
  const again = await send({ jsonrpc: '2.0', id: 7, method: 'tools/list' });
  expect(again.status).toBe(200);
  expect(again.text).toContain('"id":7');
});
