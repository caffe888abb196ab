/**
 * Outbound webhooks (spec "Events"; docs/protocol.md §10). Fire-and-forget: `dispatch` returns at once and
 * never throws, so a webhook can never change an API response. Each hook URL gets one attempt with a
 * 5 s timeout, signed with the server passport key (core `signWebhook`).
 *
 * Where it may go is decided by the core's rules (`resolveWebhookTarget`, `pickWebhookAddresses`): the
 * name is resolved here with DNS queries (`createWebhookNameResolver`, off the thread pool), every resolved
 * address is classified, and the request connects only to allowed addresses that were checked (a fixed
 * `lookup`), never re-resolving the name, so DNS rebinding cannot move it to a private address. With an
 * allowed address of each family, the first gets the whole time, and the other is tried, with what is
 * left, only when the first one's connect fails (refused, no route): a dual-stack receiver is reached
 * from a host with one family only, and a slow first connect is not abandoned. Loopback is allowed only with the test-only setting
 * WEBHOOK_ALLOW_LOOPBACK.
 *
 * Outcomes are logged, counted (`figures()`) and kept (the last 100, `recentOutcomes()`); tests await
 * deliveries with `idle()`.
 */
import { request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { resolveWebhookTarget, signWebhook, type Clock } from '@passport/core';
import {
  checkWebhookAddress,
  pickWebhookAddresses,
  type WebhookAddressPolicy,
  type WebhookTarget,
} from '@passport/core/webhook';
import { hostInterfaceAddresses, ipAddressClassifierFor } from './ip-address.classifier.js';
import { createWebhookNameResolver, type WebhookNameResolver } from './webhook-name.resolver.js';
import { type AppConfig } from '../platform/config/app-config.js';
import { APP_CONFIG, CLOCK, SERVER_IDENTITY } from '../platform/infrastructure/di-tokens.js';
import { type ServerIdentity } from '../platform/infrastructure/server-identity.js';

/** One delivery's whole time bound: the name lookup and the request share it. */
export const WEBHOOK_TIMEOUT_MS = 5000;
/** How many of a name's addresses are classified, in the resolver's order. */
export const MAX_ADDRESSES_LOOKED_AT = 64;
/** Injection token of the webhook name resolver (tests give their own; the default queries DNS). */
export const WEBHOOK_NAME_RESOLVER = Symbol('WEBHOOK_NAME_RESOLVER');
/**
 * Errors only a connect raises (the request never reached the receiver): after one of them the other
 * family's address is tried. Not a timeout, nor an error once connected (the receiver may have the
 * event: a second delivery could repeat it).
 */
const CONNECT_FAILURES = new Set([
  'ECONNREFUSED',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'EADDRNOTAVAIL',
  'EAFNOSUPPORT',
  'ENETDOWN',
  'EHOSTDOWN',
]);
const RECENT_LIMIT = 100;
/** Dispatches in flight at once; beyond it an event is refused (counted and logged), not queued. */
export const MAX_IN_FLIGHT = 100;
/**
 * Dispatches of one holder in flight at once: a holder whose receiver hangs cannot take every slot
 * (else one passport can take all 100, and other holders' webhooks are refused).
 */
export const MAX_IN_FLIGHT_PER_HOLDER = 10;

export interface WebhookDispatch {
  readonly event: string;
  readonly data: unknown;
  readonly requestId: string;
  /** The session of the JWT whose call caused this webhook (signed into the body, repeated in a header). */
  readonly sessionId?: string;
  /** The holder's `webhook_url` (a base URL; the hook paths are appended). */
  readonly webhookUrl: string | null | undefined;
  /** The holder's `webhook_cidr`, when set. */
  readonly webhookCidr?: string | null;
}

export type WebhookOutcomeKind = 'delivered' | 'failed' | 'refused';

export interface WebhookDeliveryOutcome {
  readonly event: string;
  readonly requestId: string;
  readonly outcome: WebhookOutcomeKind;
  /** The hook URL (null when the base URL itself was refused). */
  readonly url: string | null;
  /** The address connected to (when no connection was made, the last one tried). */
  readonly address?: string;
  /** The receiver's HTTP status. */
  readonly status?: number;
  /** Why it was refused or failed (client-safe words, never upstream text). */
  readonly reason?: string;
}

export interface WebhookFigures {
  readonly delivered: number;
  readonly failed: number;
  readonly refused: number;
}

@Injectable()
export class WebhookDispatcher {
  private readonly logger = new Logger('Webhooks');
  private readonly pending = new Set<Promise<void>>();
  /** Dispatches in flight per holder (token id); an entry leaves with its holder's last dispatch. */
  private readonly perHolder = new Map<string, number>();
  private readonly recent: WebhookDeliveryOutcome[] = [];
  private readonly counts = { delivered: 0, failed: 0, refused: 0 };

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(SERVER_IDENTITY) private readonly server: ServerIdentity,
    @Inject(CLOCK) private readonly clock: Clock,
    @Optional()
    @Inject(WEBHOOK_NAME_RESOLVER)
    private readonly resolveName: WebhookNameResolver = createWebhookNameResolver(),
  ) {
    if (config.webhookTlsSkipVerify)
      this.logger.warn(
        'WEBHOOK_TLS_SKIP_VERIFY=true: https webhooks do not check the receiver certificate (development only)',
      );
  }

  /**
   * Starts the deliveries of one event (or of nothing, when `resolveTarget` yields no URL) and
   * returns at once. `resolveTarget` runs in the background too, so a slow chain read cannot delay
   * the response either.
   */
  dispatch(resolveTarget: () => Promise<WebhookDispatch | null>, holder: string): void {
    if (this.pending.size >= MAX_IN_FLIGHT) {
      this.counts.refused++;
      this.logger.warn(`webhook refused: ${MAX_IN_FLIGHT} deliveries already in flight`);
      return;
    }
    const held = this.perHolder.get(holder) ?? 0;
    if (held >= MAX_IN_FLIGHT_PER_HOLDER) {
      this.counts.refused++;
      this.logger.warn(
        `webhook refused: ${MAX_IN_FLIGHT_PER_HOLDER} deliveries of ${holder} already in flight`,
      );
      return;
    }
    this.perHolder.set(holder, held + 1);
    const run = (async () => {
      let dispatch: WebhookDispatch | null;
      try {
        dispatch = await resolveTarget();
      } catch {
        this.logger.warn('webhook target could not be read; no webhook sent');
        return;
      }
      if (
        !dispatch ||
        dispatch.webhookUrl === null ||
        dispatch.webhookUrl === undefined ||
        dispatch.webhookUrl === ''
      )
        return;
      await this.deliverAll(dispatch);
    })().catch((error: unknown) => {
      this.logger.error(`webhook dispatch failed unexpectedly: ${(error as Error)?.name ?? 'error'}`);
    });
    this.pending.add(run);
    void run.finally(() => {
      this.pending.delete(run);
      const left = (this.perHolder.get(holder) ?? 1) - 1;
      if (left > 0) this.perHolder.set(holder, left);
      else this.perHolder.delete(holder);
    });
  }

  /** Resolves when every delivery started so far has finished (for tests and graceful shutdown). */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  figures(): WebhookFigures {
    return { ...this.counts };
  }

  recentOutcomes(): readonly WebhookDeliveryOutcome[] {
    return [...this.recent];
  }

  private async deliverAll(dispatch: WebhookDispatch): Promise<void> {
    const policy: WebhookAddressPolicy = {
      // The host's own addresses read once per event (a review: read per address, a name with thousands
      // of records held the event loop ~400 ms).
      classifier: ipAddressClassifierFor(hostInterfaceAddresses()),
      allowLoopback: this.config.webhookAllowLoopback,
      webhookCidr: dispatch.webhookCidr ?? null,
    };
    const resolved = resolveWebhookTarget(dispatch.webhookUrl, policy);
    if (!resolved.ok) {
      const literal = resolved.reason === 'address_not_allowed' ? hostOf(dispatch.webhookUrl) : null;
      const reason = literal !== null ? refusalReason([literal], policy) : resolved.reason;
      this.record(dispatch, { outcome: 'refused', url: null, reason });
      return;
    }
    const { target } = resolved;
    const deadline = performance.now() + WEBHOOK_TIMEOUT_MS;
    let addresses: string[];
    try {
      addresses = target.literalAddress
        ? [target.literalAddress]
        : await this.resolveName(target.host, WEBHOOK_TIMEOUT_MS);
    } catch {
      for (const url of target.urls)
        this.record(dispatch, { outcome: 'failed', url, reason: 'dns_lookup_failed' });
      return;
    }
    // Only the first addresses are looked at: a name with more is no receiver (and classifying thousands
    // is event-loop time for nothing).
    const allowed = pickWebhookAddresses(addresses.slice(0, MAX_ADDRESSES_LOOKED_AT), policy);
    if (allowed.length === 0) {
      // One refusal per event, as for a refused address literal: `refused` counts events stopped before
      // any delivery, `delivered` and `failed` count deliveries (one unit per counter).
      this.record(dispatch, { outcome: 'refused', url: null, reason: refusalReason(addresses, policy) });
      return;
    }
    // The deliveries of one event share one body: each gets its own millisecond (the first the clock's,
    // the next one more), so its own signature. A receiver keeping the signatures it has seen (the core's
    // replay option, one store for its gateway) would otherwise refuse the second as a replay.
    const timestampMs = Math.trunc(this.clock.nowMs());
    await Promise.all(
      target.urls.map((url, index) =>
        this.deliverOne(dispatch, target, url, allowed, timestampMs + index, deadline),
      ),
    );
  }

  private async deliverOne(
    dispatch: WebhookDispatch,
    target: WebhookTarget,
    url: string,
    addresses: readonly string[],
    timestampMs: number,
    deadline: number,
  ): Promise<void> {
    const signed = signWebhook({
      payload: {
        event: dispatch.event,
        data: dispatch.data,
        isError: false,
        requestId: dispatch.requestId,
        ...(dispatch.sessionId === undefined ? {} : { session_id: dispatch.sessionId }),
      },
      signer: this.server.signer,
      serverTokenId: this.server.tokenId,
      timestampMs,
    });
    let index = 0;
    for (;;) {
      const address = addresses[index]!;
      try {
        const status = await postOnce(url, target, address, signed.headers, signed.body, {
          verifyTls: !this.config.webhookTlsSkipVerify,
          timeoutMs: Math.max(1, Math.floor(deadline - performance.now())),
        });
        const ok = status >= 200 && status < 300;
        this.record(
          dispatch,
          ok
            ? { outcome: 'delivered', url, address, status }
            : { outcome: 'failed', url, address, status, reason: 'http_status' },
        );
        return;
      } catch (error) {
        // The first family's connect failed (an IPv6-only host and an IPv4 address, a receiver listening
        // on one family): the other, with the time left. A review: Node's autoSelectFamily abandoned a
        // first connect slower than 250 ms, and a delivery that used to arrive failed.
        const code = (error as { code?: unknown })?.code;
        const timeLeft = deadline - performance.now() >= 1;
        if (
          index + 1 < addresses.length &&
          typeof code === 'string' &&
          CONNECT_FAILURES.has(code) &&
          timeLeft
        ) {
          index++;
          continue;
        }
        const reason =
          (error as Error)?.name === 'TimeoutError' || (error as Error)?.name === 'AbortError'
            ? 'timeout'
            : 'connection_failed';
        this.record(dispatch, { outcome: 'failed', url, address, reason });
        return;
      }
    }
  }

  private record(
    dispatch: WebhookDispatch,
    fields: Omit<WebhookDeliveryOutcome, 'event' | 'requestId'>,
  ): void {
    const outcome: WebhookDeliveryOutcome = {
      event: dispatch.event,
      requestId: dispatch.requestId,
      ...fields,
    };
    this.counts[outcome.outcome]++;
    this.recent.push(outcome);
    if (this.recent.length > RECENT_LIMIT) this.recent.shift();
    const line = `webhook ${outcome.event} ${outcome.outcome}${outcome.url ? ` ${outcome.url}` : ''}${outcome.status ? ` status=${outcome.status}` : ''}${outcome.reason ? ` reason=${outcome.reason}` : ''} requestId=${outcome.requestId}`;
    if (outcome.outcome === 'delivered') this.logger.log(line);
    else this.logger.warn(line);
  }
}

/**
 * Why none of `addresses` may receive a webhook: `webhook_cidr_unreadable` when the passport's range
 * is malformed (nothing is allowed then), `outside_webhook_cidr` when one had an allowed class but lay
 * outside it, else `address_not_allowed:<class of the first address>`.
 */
function refusalReason(addresses: readonly string[], policy: WebhookAddressPolicy): string {
  const verdicts = addresses.map((a) => checkWebhookAddress(a, policy));
  if (verdicts.some((v) => v.cidrUnreadable)) return 'webhook_cidr_unreadable';
  if (verdicts.some((v) => v.outsideCidr)) return 'outside_webhook_cidr';
  return `address_not_allowed:${verdicts[0]?.addressClass ?? 'unknown'}`;
}

/** The host of a webhook URL as the URL parser normalises it (IPv6 brackets removed). */
function hostOf(webhookUrl: string | null | undefined): string | null {
  const text = (webhookUrl ?? '').trim();
  try {
    const url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`);
    return url.hostname.replace(/^\[|\]$/g, '');
  } catch {
    return null;
  }
}

/** One POST to `url`, connecting to `address` (already checked), within what is left of the 5 s. Resolves the status. */
function postOnce(
  url: string,
  target: WebhookTarget,
  address: string,
  headers: Readonly<Record<string, string>>,
  body: string,
  limits: { readonly verifyTls: boolean; readonly timeoutMs: number },
): Promise<number> {
  const family = isIP(address) === 6 ? 6 : 4;
  // Always answer the checked address; Node may ask for one address or for all (autoSelectFamily). The
  // answer comes on a later turn, as a real lookup's does: answered at once, a connect that fails at once
  // (no route to the address's family, a broadcast address) emitted its error before the request listened,
  // and the unhandled 'error' ended the process (a review).
  const pinnedLookup = ((
    _host: string,
    options: { all?: boolean },
    callback: (...args: unknown[]) => void,
  ) => {
    setImmediate(() => {
      if (options?.all) callback(null, [{ address, family }]);
      else callback(null, address, family);
    });
  }) as unknown as LookupFunction;
  const options: RequestOptions = {
    method: 'POST',
    headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) },
    lookup: pinnedLookup,
    signal: AbortSignal.timeout(limits.timeoutMs),
    agent: false,
    // https only (ignored by http): WEBHOOK_TLS_SKIP_VERIFY, development only.
    ...(limits.verifyTls ? {} : { rejectUnauthorized: false }),
  };
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<number>((resolve, reject) => {
    const req = send(url, options, (res) => {
      // The status is the outcome; the receiver's body is not wanted, so the connection (never reused:
      // no agent) is closed rather than read to its end for up to the timeout.
      resolve(res.statusCode ?? 0);
      res.destroy();
    });
    req.on('error', reject);
    req.end(body);
  });
}
