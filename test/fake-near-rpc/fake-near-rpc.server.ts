/**
 * A fake NEAR JSON-RPC node (node:http on 127.0.0.1, port 0) speaking the wire format near-api-js 7.2
 * really sends and expects (engineering anchors §6.2): `query` with `request_type: call_function`
 * (`args_base64`, result as a byte array), `view_access_key_list`, `block`, structured errors such as
 * UNKNOWN_ACCOUNT. Faults are queued per test (429, 503-then-200, malformed JSON, malformed results,
 * contract errors, slow answers), and every request is recorded so tests can count chain reads.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo } from 'node:net';

export interface FakeToken {
  token_id: string;
  owner_id: string;
  metadata: Record<string, string | null>;
}

export interface FakeAccessKey {
  public_key: string;
  permission:
    'FullAccess' | { FunctionCall: { allowance: string; receiver_id: string; method_names: string[] } };
}

export interface RecordedRequest {
  readonly method: string;
  readonly requestType?: string;
  readonly methodName?: string;
  readonly args?: unknown;
  readonly finality?: string;
}

export type Fault =
  | { kind: 'http'; status: number; body?: string }
  | { kind: 'malformed-json' }
  | { kind: 'slow'; delayMs: number }
  | { kind: 'raw-result'; bytes: number[] }
  | { kind: 'result'; value: unknown }
  | { kind: 'rpc-error'; cause: string; info?: Record<string, unknown> }
  /** Headers never come: the request hangs until the client gives up. */
  | { kind: 'hang' }
  /** A 200 whose body comes one byte every `everyMs` and never ends. */
  | { kind: 'trickle'; everyMs: number }
  /** A valid answer for a token, padded with whitespace to `megabytes` MB (sent as fast as it is read). */
  | { kind: 'huge'; megabytes: number; declareLength?: boolean };

export interface FakeNearRpc {
  readonly url: string;
  readonly contractId: string;
  readonly tokens: FakeToken[];
  readonly accounts: Map<string, FakeAccessKey[]>;
  /** Final block time in Unix ms. */
  blockTimeMs: number;
  readonly requests: RecordedRequest[];
  /** Faults applied to the next requests, one each, in order. */
  enqueue(...faults: Fault[]): void;
  /** Drops every queued fault. */
  clearFaults(): void;
  /** Number of recorded requests matching a filter. */
  count(filter?: (r: RecordedRequest) => boolean): number;
  /** TCP connections open at the node now. */
  openSockets(): number;
  /** Bytes of `huge` answers the node has written so far. */
  readonly hugeBytesWritten: number;
  close(): Promise<void>;
}

/** The contract's view-method names (a contract may name them otherwise, as the production one does). */
export interface FakeViewMethods {
  readonly token: string;
  readonly tokensForOwner: string;
  readonly tokens: string;
}

export async function startFakeNearRpc(
  contractId = 'passport.test.near',
  methods: FakeViewMethods = {
    token: 'passport_token',
    tokensForOwner: 'passport_tokens_for_owner',
    tokens: 'passport_tokens',
  },
): Promise<FakeNearRpc> {
  const faults: Fault[] = [];
  const sockets = new Set<import('node:net').Socket>();
  const state = {
    contractId,
    tokens: [] as FakeToken[],
    accounts: new Map<string, FakeAccessKey[]>(),
    blockTimeMs: Date.UTC(2026, 0, 15, 12, 0, 0),
    requests: [] as RecordedRequest[],
    hugeBytesWritten: 0,
  };

  const server: Server = createServer((req, res) => {
    void handle(req, res);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let body: { id?: unknown; method?: string; params?: Record<string, unknown> };
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return send(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
    }
    const params = body.params ?? {};
    const recorded: RecordedRequest = {
      method: String(body.method),
      requestType: params.request_type as string | undefined,
      methodName: params.method_name as string | undefined,
      args:
        typeof params.args_base64 === 'string'
          ? JSON.parse(Buffer.from(params.args_base64, 'base64').toString('utf8'))
          : undefined,
      finality: params.finality as string | undefined,
    };
    state.requests.push(recorded);
    const fault = faults.shift();
    const id = body.id;
    if (fault?.kind === 'slow') await new Promise((resolve) => setTimeout(resolve, fault.delayMs));
    if (fault?.kind === 'http') {
      res.writeHead(fault.status, { 'content-type': 'text/plain' });
      res.end(fault.body ?? `upstream status ${fault.status} secret-internal-detail`);
      return;
    }
    if (fault?.kind === 'malformed-json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"jsonrpc":"2.0","id":');
      return;
    }
    if (fault?.kind === 'rpc-error') return send(res, 200, rpcError(id, fault.cause, fault.info ?? {}));
    if (fault?.kind === 'hang') return;
    if (fault?.kind === 'trickle') {
      res.writeHead(200, { 'content-type': 'application/json' });
      const timer = setInterval(() => res.write(' '), fault.everyMs);
      res.on('close', () => clearInterval(timer));
      return;
    }
    if (fault?.kind === 'huge') {
      const answer = JSON.stringify(callResult(id, [...Buffer.from('null')]));
      const padding = Buffer.alloc(1024 * 1024, 0x20);
      const total = fault.megabytes * padding.length + answer.length;
      res.writeHead(200, {
        'content-type': 'application/json',
        ...(fault.declareLength ? { 'content-length': String(total) } : {}),
      });
      let left = fault.megabytes;
      const pump = (): void => {
        while (left > 0) {
          left--;
          state.hugeBytesWritten += padding.length;
          if (!res.write(padding)) return void res.once('drain', pump);
        }
        res.end(answer);
      };
      res.on('close', () => (left = 0));
      pump();
      return;
    }
    if (fault?.kind === 'raw-result') return send(res, 200, callResult(id, fault.bytes));
    if (fault?.kind === 'result') return send(res, 200, { jsonrpc: '2.0', id, result: fault.value });

    if (body.method === 'block') {
      const ns = BigInt(state.blockTimeMs) * 1_000_000n;
      return send(res, 200, {
        jsonrpc: '2.0',
        id,
        result: {
          author: 'node0',
          header: {
            height: 123456,
            hash: '9MzuZrRPW1BGpFnZJUJg6SzCrixPpJDfjsNeUobRXsLe',
            timestamp: Number(ns),
            timestamp_nanosec: ns.toString(),
          },
          chunks: [],
        },
      });
    }
    if (body.method === 'query' && params.request_type === 'view_access_key_list') {
      const keys = state.accounts.get(String(params.account_id));
      if (!keys)
        return send(
          res,
          200,
          rpcError(id, 'UNKNOWN_ACCOUNT', {
            requested_account_id: params.account_id,
            block_height: 1,
            block_hash: 'x',
          }),
        );
      return send(res, 200, {
        jsonrpc: '2.0',
        id,
        result: {
          keys: keys.map((k, i) => ({
            public_key: k.public_key,
            access_key: { nonce: i, permission: k.permission },
          })),
          block_height: 123456,
          block_hash: '9MzuZrRPW1BGpFnZJUJg6SzCrixPpJDfjsNeUobRXsLe',
        },
      });
    }
    if (body.method === 'query' && params.request_type === 'call_function') {
      if (params.account_id !== state.contractId) {
        return send(
          res,
          200,
          rpcError(id, 'UNKNOWN_ACCOUNT', {
            requested_account_id: params.account_id,
            block_height: 1,
            block_hash: 'x',
          }),
        );
      }
      const args = (recorded.args ?? {}) as Record<string, unknown>;
      const page = <T>(list: T[]): T[] => {
        const from = Number(args.from_index ?? 0);
        const limit = Number(args.limit ?? 50);
        return list.slice(from, from + limit);
      };
      let value: unknown;
      switch (params.method_name) {
        case methods.token:
          value = state.tokens.find((t) => t.token_id === args.token_id) ?? null;
          break;
        case methods.tokensForOwner:
          value = page(state.tokens.filter((t) => t.owner_id === args.account_id));
          break;
        case methods.tokens:
          value = page(state.tokens);
          break;
        default:
          return send(
            res,
            200,
            rpcError(id, 'CONTRACT_EXECUTION_ERROR', {
              vm_error: `MethodResolveError(MethodNotFound) ${String(params.method_name)}`,
            }),
          );
      }
      return send(res, 200, callResult(id, [...Buffer.from(JSON.stringify(value), 'utf8')]));
    }
    return send(res, 200, {
      jsonrpc: '2.0',
      id,
      error: { code: -32601, message: 'Method not found', name: 'REQUEST_VALIDATION_ERROR' },
    });
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const rpc: FakeNearRpc = {
    url: `http://127.0.0.1:${port}`,
    contractId,
    tokens: state.tokens,
    accounts: state.accounts,
    get blockTimeMs() {
      return state.blockTimeMs;
    },
    set blockTimeMs(value: number) {
      state.blockTimeMs = value;
    },
    requests: state.requests,
    enqueue: (...more) => faults.push(...more),
    clearFaults: () => faults.splice(0, faults.length),
    count: (filter) => (filter ? state.requests.filter(filter).length : state.requests.length),
    openSockets: () => sockets.size,
    get hugeBytesWritten() {
      return state.hugeBytesWritten;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  return rpc;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function callResult(id: unknown, bytes: number[]): unknown {
  return {
    jsonrpc: '2.0',
    id,
    result: {
      result: bytes,
      logs: [],
      block_height: 123456,
      block_hash: '9MzuZrRPW1BGpFnZJUJg6SzCrixPpJDfjsNeUobRXsLe',
    },
  };
}

/** The structured error shape of nearcore (`HANDLER_ERROR` with a named cause). */
function rpcError(id: unknown, cause: string, info: Record<string, unknown>): unknown {
  return {
    jsonrpc: '2.0',
    id,
    error: {
      name: 'HANDLER_ERROR',
      cause: { name: cause, info },
      code: -32000,
      message: 'Server error',
      data: `${cause}: upstream-internal-detail`,
    },
  };
}
