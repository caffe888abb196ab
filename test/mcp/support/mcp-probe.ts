/** Raw HTTP probes of /mcp (what an SDK client would never send) and an SDK client factory. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'probe', version: '0' } },
};

export const MCP_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};

/**
 * One POST of session `id` as raw HTTP/1.1 text for `host`, protocol 2025-11-25: to write on a raw socket
 * (pipelined behind others, or reset part-way).
 */
export function rawSessionPost(
  host: string,
  id: string,
  rpcId: number,
  method: string,
  params: object,
): string {
  const body = JSON.stringify({ jsonrpc: '2.0', id: rpcId, method, params });
  return [
    'POST /mcp HTTP/1.1',
    `host: ${host}`,
    `content-type: ${MCP_HEADERS['content-type']}`,
    `accept: ${MCP_HEADERS.accept}`,
    `mcp-session-id: ${id}`,
    'mcp-protocol-version: 2025-11-25',
    `content-length: ${Buffer.byteLength(body)}`,
    '',
    body,
  ].join('\r\n');
}

export interface ProbeResult {
  readonly status: number;
  readonly headers: Headers;
  readonly body: unknown;
}

export async function probe(
  baseUrl: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown },
): Promise<ProbeResult> {
  const response = await fetch(`${baseUrl}/mcp`, {
    method: init.method ?? 'POST',
    // Like the SDK client: Content-Type only when there is a body (an empty JSON body is INVALID_JSON).
    headers: { ...(init.body === undefined ? { accept: MCP_HEADERS.accept } : MCP_HEADERS), ...init.headers },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // SSE or empty bodies stay text
  }
  return { status: response.status, headers: response.headers, body };
}

/** Initializes a session with a raw POST and returns its id (the SSE answer is read to the end). */
export async function openRawSession(baseUrl: string): Promise<string> {
  const response = await fetch(`${baseUrl}/mcp`, {
    method: 'POST',
    headers: MCP_HEADERS,
    body: JSON.stringify(INITIALIZE),
  });
  await response.text();
  const id = response.headers.get('mcp-session-id');
  if (response.status !== 200 || !id) throw new Error(`initialize failed: ${response.status}`);
  return id;
}

export async function connectClient(
  baseUrl: string,
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: 'passport-mcp-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`));
  await client.connect(transport);
  return { client, transport };
}

/**
 * A raw HTTP/1.1 exchange with /mcp from a chosen loopback source address (127.0.0.0/8 all route to
 * lo), so a test can act as several clients with separate per-address buckets.
 */
export async function requestFrom(
  baseUrl: string,
  localAddress: string,
  init: { method: string; headers?: Record<string, string>; body?: unknown },
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  const { request } = await import('node:http');
  const url = new URL(`${baseUrl}/mcp`);
  const payload = init.body === undefined ? undefined : JSON.stringify(init.body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: '/mcp',
        method: init.method,
        localAddress,
        headers: {
          accept: MCP_HEADERS.accept,
          ...(payload ? { 'content-type': 'application/json' } : {}),
          ...init.headers,
        },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}
