/** A WebhookDispatcher for tests (a fixed server key, the system clock), and one event sent through it. */
import { systemClock } from '@passport/core';
import { createNodeSigner } from '@passport/core/node';
import { WebhookDispatcher } from '../../apps/api/src/webhooks/webhook-dispatcher.js';
import { type WebhookNameResolver } from '../../apps/api/src/webhooks/webhook-name.resolver.js';

export function testDispatcher(resolveName: WebhookNameResolver, allowLoopback = false): WebhookDispatcher {
  return new WebhookDispatcher(
    { webhookAllowLoopback: allowLoopback, webhookTlsSkipVerify: false } as never,
    { tokenId: 'aaaaaaaaaaaa', signer: createNodeSigner(new Uint8Array(32).fill(7)) } as never,
    systemClock,
    resolveName,
  );
}

/** Sends one testhola event to `webhookUrl`; its outcomes as `<outcome> <reason or status>`. */
export async function sendOneEvent(dispatcher: WebhookDispatcher, webhookUrl: string): Promise<string[]> {
  dispatcher.dispatch(
    async () => ({ event: 'testhola_validation_success', data: {}, requestId: 'r1', webhookUrl }),
    'holder',
  );
  await dispatcher.idle();
  return dispatcher.recentOutcomes().map((o) => `${o.outcome} ${o.reason ?? o.status ?? ''}`.trim());
}
