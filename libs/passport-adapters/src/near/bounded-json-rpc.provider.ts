/**
 * near-api-js's JsonRpcProvider with a transport that ends what it starts. The provider's own
 * `fetchJsonRpc` cannot be given an AbortSignal, reads any answer whole, and retries without a
 * deadline: a hung or trickling node keeps one socket open per read long after the reader has given up
 * (1024 file descriptors filled in 46 s, measured), and a 100 MB answer is read into memory. The
 * provider still builds every request (`query` params, finality, `args_base64`); this class only sends
 * them, under:
 * - one deadline for the whole call, retries included (the connection is destroyed when it passes);
 * - a cap on the answer's size, counted as it arrives, the connection destroyed past it;
 * - a cap on calls in flight, refused at once beyond it (a slow node cannot pile up sockets), part of
 *   it kept for reads marked `withReservedChainReads` (session re-checks; see reserved-chain-reads).
 * The retry rule is the provider's (HTTP 500/408/503 and network errors, `attempts` in all); errors
 * come out as `ChainUnavailableError`, except an unknown account, which the reader reads as "no keys".
 * Redirects are not followed (fetch would follow them): configure the node's final URL.
 */
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import { JsonRpcProvider } from 'near-api-js';
import { ChainUnavailableError } from '@passport/core';
import { mayUseReservedChainReads } from '../caching/reserved-chain-reads.js';

export interface BoundedJsonRpcOptions {
  readonly url: string;
  /** One deadline for a call, every attempt included. */
  readonly timeoutMs: number;
  /** Attempts for retryable answers (at least 1). */
  readonly attempts: number;
  /** First wait between attempts (then ×1.5). */
  readonly retryWaitMs: number;
  /** Largest answer read, in bytes. */
  readonly maxResponseBytes: number;
  /** Calls in flight at once; a call beyond them fails at once with `busy`. */
  readonly maxInFlight: number;
  /**
   * Of those, how many only reads started inside `withReservedChainReads` may take (default a quarter,
   * at least 1 when there are 2 or more): the others are `busy` once `maxInFlight` − this are in flight.
   */
  readonly reservedInFlight?: number | undefined;
}

/** The node's answer to a call on an account that does not exist (a reader answers "no keys"). */
export class UnknownAccountError extends Error {
  override readonly name = 'UnknownAccountError';
}

interface HttpAnswer {
  readonly status: number;
  readonly text: string;
}

const RETRYABLE_STATUS = new Set([500, 408, 503]);
let nextId = 1;

export class BoundedJsonRpcProvider extends JsonRpcProvider {
  private inFlight = 0;
  private readonly reserved: number;
  private readonly url: URL;
  // Connections are kept for the next read; never more of them than reads allowed in flight.
  private readonly agent: HttpAgent | HttpsAgent;

  constructor(private readonly bounds: BoundedJsonRpcOptions) {
    super({ url: bounds.url });
    for (const [name, value] of Object.entries({
      timeoutMs: bounds.timeoutMs,
      attempts: bounds.attempts,
      maxResponseBytes: bounds.maxResponseBytes,
      maxInFlight: bounds.maxInFlight,
    })) {
      if (!Number.isSafeInteger(value) || value < 1)
        throw new RangeError(`${name} must be a positive integer`);
    }
    if (!Number.isFinite(bounds.retryWaitMs) || bounds.retryWaitMs < 0)
      throw new RangeError('retryWaitMs must be a non-negative number');
    this.reserved = Math.min(
      bounds.maxInFlight - 1,
      Math.max(
        0,
        Math.floor(
          bounds.reservedInFlight ?? Math.max(bounds.maxInFlight > 1 ? 1 : 0, bounds.maxInFlight / 4),
        ),
      ),
    );
    this.url = new URL(bounds.url);
    const Agent = this.url.protocol === 'https:' ? HttpsAgent : HttpAgent;
    this.agent = new Agent({ keepAlive: true, maxSockets: bounds.maxInFlight });
  }

  /** Calls in flight now. */
  get callsInFlight(): number {
    return this.inFlight;
  }

  // The base class types this per RPC method; the transport does not depend on which.
  override async sendJsonRpc<T>(method: string, params: unknown): Promise<T> {
    const limit = mayUseReservedChainReads()
      ? this.bounds.maxInFlight
      : this.bounds.maxInFlight - this.reserved;
    if (this.inFlight >= limit) throw new ChainUnavailableError('busy');
    const deadline = AbortSignal.timeout(this.bounds.timeoutMs);
    this.inFlight++;
    try {
      return (await this.send(method, params, deadline)) as T;
    } catch (error) {
      if (error instanceof ChainUnavailableError || error instanceof UnknownAccountError) throw error;
      if (deadline.aborted) throw new ChainUnavailableError('timeout', { cause: error });
      throw new ChainUnavailableError('rpc_error', { cause: error });
    } finally {
      this.inFlight--;
    }
  }

  private async send(method: string, params: unknown, signal: AbortSignal): Promise<unknown> {
    const body = JSON.stringify({ method, params, id: String(nextId++), jsonrpc: '2.0' });
    let wait = this.bounds.retryWaitMs;
    for (let attempt = 1; ; attempt++) {
      let answer: HttpAnswer;
      try {
        answer = await this.post(body, signal);
      } catch (error) {
        if (signal.aborted || error instanceof ChainUnavailableError || attempt >= this.bounds.attempts)
          throw error;
        await sleep(wait, undefined, { signal });
        wait *= 1.5;
        continue;
      }
      if (RETRYABLE_STATUS.has(answer.status) && attempt < this.bounds.attempts) {
        await sleep(wait, undefined, { signal });
        wait *= 1.5;
        continue;
      }
      if (answer.status === 429) throw new ChainUnavailableError('rate_limited');
      // A JSON-RPC node answers errors with 200 (or 400 for a request it cannot parse): read those too.
      if (answer.status !== 200 && answer.status !== 400)
        throw new ChainUnavailableError('rpc_error', { cause: new Error(`HTTP ${answer.status}`) });
      // A 400 is read for its error only: a `result` under it is no answer (a probe's node had one taken).
      return resultOf(answer.text, answer.status === 400);
    }
  }

  /**
   * One POST over node:http(s). Not `fetch`: Node 20's fetch leaves the connection open when its signal
   * aborts a request still waiting for headers (the node's own request timeout closed it minutes
   * later). Destroying the request closes the socket at once, whatever stage it is in.
   */
  private post(body: string, signal: AbortSignal): Promise<HttpAnswer> {
    const send = this.url.protocol === 'https:' ? httpsRequest : httpRequest;
    const maxBytes = this.bounds.maxResponseBytes;
    return new Promise<HttpAnswer>((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason as Error);
      const request = send(this.url, {
        method: 'POST',
        agent: this.agent,
        headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
      });
      let settled = false;
      const finish = (error: Error | null, answer?: HttpAnswer) => {
        if (settled) return;
        settled = true;
        signal.removeEventListener('abort', onAbort);
        if (error) {
          request.destroy();
          reject(error);
        } else resolve(answer!);
      };
      const onAbort = () => finish(signal.reason as Error);
      signal.addEventListener('abort', onAbort, { once: true });
      request.on('error', (error) => finish(error));
      request.on('response', (response) => {
        const status = response.statusCode ?? 0;
        const readBody = status === 200 || status === 400;
        // Only the status of any other answer counts: the connection goes, its body is not read.
        if (!readBody) {
          finish(null, { status, text: '' });
          request.destroy();
          return;
        }
        const declared = Number(response.headers['content-length']);
        if (Number.isFinite(declared) && declared > maxBytes)
          return finish(new ChainUnavailableError('response_too_large'));
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          if (settled) return;
          size += chunk.length;
          if (size > maxBytes) return finish(new ChainUnavailableError('response_too_large'));
          chunks.push(chunk);
        });
        response.on('error', (error) => finish(error));
        response.on('end', () =>
          finish(null, { status, text: Buffer.concat(chunks, size).toString('utf8') }),
        );
      });
      request.end(body);
    });
  }
}

/** A JSON-RPC answer's `result`, or the error it carries. */
function resultOf(text: string, errorOnly = false): unknown {
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch (error) {
    throw new ChainUnavailableError('malformed_result', { cause: error });
  }
  if (typeof answer !== 'object' || answer === null) throw new ChainUnavailableError('malformed_result');
  const { error, result } = answer as { error?: unknown; result?: unknown };
  if (error !== undefined && error !== null) {
    const cause = (error as { cause?: { name?: unknown } }).cause?.name;
    if (cause === 'UNKNOWN_ACCOUNT') throw new UnknownAccountError('unknown account');
    throw new ChainUnavailableError('rpc_error', { cause: new Error(`RPC error ${String(cause ?? '')}`) });
  }
  if (result === undefined || errorOnly) throw new ChainUnavailableError('malformed_result');
  // The older error form: a result object carrying an error text (a contract panic, a missing method,
  // "account alice.near does not exist while viewing").
  if (
    typeof result === 'object' &&
    result !== null &&
    typeof (result as { error?: unknown }).error === 'string'
  ) {
    const text = (result as { error: string }).error;
    // Only an account's absence: "block … does not exist" is a node that is behind, not an account
    // without keys (else a transient error refuses a login as a bad signature).
    if (/UNKNOWN_ACCOUNT|\baccount\s+\S+\s+does not exist/i.test(text))
      throw new UnknownAccountError('unknown account');
    throw new ChainUnavailableError('rpc_error', { cause: new Error(text) });
  }
  return result;
}
