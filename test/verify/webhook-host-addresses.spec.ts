/**
 * The webhook dispatcher reads this host's interface addresses (the `this-host` class) once per event,
 * not once per resolved address: a review found a name with 2,401 records held the event loop ~400 ms,
 * and a verify 5.8-12 s on a real app, when os.networkInterfaces ran for each address classified.
 */
import { jest } from '@jest/globals';

let reads = 0;
const os = await import('node:os');
jest.unstable_mockModule('node:os', () => ({
  ...os,
  default: os,
  networkInterfaces: () => {
    reads++;
    return os.networkInterfaces();
  },
}));
const { systemClock } = await import('@passport/core');
const { createNodeSigner } = await import('@passport/core/node');
const { WebhookDispatcher } = await import('../../apps/api/src/webhooks/webhook-dispatcher.js');

it('one read of the interfaces for an event whose name has many addresses', async () => {
  const addresses = Array.from({ length: 60 }, (_, i) => `10.0.0.${i + 1}`);
  const d = new WebhookDispatcher(
    { webhookAllowLoopback: false, webhookTlsSkipVerify: false } as never,
    { tokenId: 'aaaaaaaaaaaa', signer: createNodeSigner(new Uint8Array(32).fill(7)) } as never,
    systemClock,
    async () => addresses,
  );
  d.dispatch(
    async () => ({
      event: 'testhola_validation_success',
      data: {},
      requestId: 'r1',
      webhookUrl: 'http://many.example:8080',
    }),
    'holder',
  );
  await d.idle();
  expect(d.recentOutcomes().map((o) => o.outcome)).toEqual(['refused']);
  expect(reads).toBe(1);
});
