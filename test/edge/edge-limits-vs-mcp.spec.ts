/**
 * Failing (review): the edge's requests-in-progress bound per address (PASSPORT_EDGE_MAX_CONNECTIONS_PER_ADDRESS,
 * default 100) must leave room for what the API itself lets one address hold. An MCP session of the
 * sessioned era may keep its GET event stream open (up to PASSPORT_EDGE_READ_TIMEOUT, 1 h), and the API
 * lets one address hold MCP_MAX_SESSIONS_PER_ADDRESS (default 100) sessions. With that many streams
 * open through the edge, every further request from the address (the sessions' own tool calls, a
 * login, /health) was the edge's 429 until a stream ended (reproduced with nginx: 100 streams, then
 * POST /mcp tools/list and GET /health both 429). One host running many agents, or a NAT, meets it.
 */
import { loadConfig } from '../../apps/api/src/platform/config/app-config.js';
import { edgeScriptVariable } from '../support/nginx-edge-template.js';

it('the edge default admits more requests in progress per address than the API lets one address hold MCP streams', () => {
  const edgeBound = Number(
    edgeScriptVariable('PASSPORT_EDGE_MAX_CONNECTIONS_PER_ADDRESS', {
      PASSPORT_API_UPSTREAM: '127.0.0.1:3000',
      PASSPORT_EDGE_PORT: '8080',
    }),
  );
  const streamsOneAddressMayHold = loadConfig({}).mcpMaxSessionsPerAddress;
  expect(edgeBound).toBeGreaterThan(streamsOneAddressMayHold);
});
