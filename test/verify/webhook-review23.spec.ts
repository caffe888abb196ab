/**
 * Review of the webhook name resolver (c9d6ed4) and the this-host class (f73b9b5). Failing tests:
 *
 * 1. A connect that fails synchronously (the kernel's answer for a destination with no route: a public
 *    IPv6 receiver seen from an IPv4-only host, an IPv4 one from an IPv6-only host, a subnet's broadcast
 *    address) crashed the server: the pinned `lookup` calls back at once, so the socket's 'error' is
 *    emitted before the ClientRequest listens on it (an unhandled 'error' event; the process exits 1).
 *    Here the failure is made synchronous by the TCP binding, as `unshare -n` (no route) makes it.
 * 2. With two name servers, the first one silent, the second is never asked within the 5 s: each query
 *    is given the whole budget as its per-server timeout (getaddrinfo with `options timeout:1` answered
 *    in ~1 s from the second server).
 * 3. Classifying a long answer read the host's interfaces once per address (os.networkInterfaces per
 *    `classify`): 2401 addresses took ~400 ms of event loop, and 30 testhola calls to such a name held
 *    one verify for 5.8-12 s (a 408) on a real app. The interfaces are now read once per event
 *    (webhook-host-addresses.spec.ts), and only a name's first 64 addresses are looked at.
 * 4. A name server that answers A and never AAAA held the lookup for the whole 5 s, leaving the request
 *    1 ms: the other family now gets 250 ms once one has answered.
 */
import { createSocket } from 'node:dgram';
import { type AddressInfo } from 'node:net';
import { MAX_ADDRESSES_LOOKED_AT } from '../../apps/api/src/webhooks/webhook-dispatcher.js';
import { createWebhookNameResolver } from '../../apps/api/src/webhooks/webhook-name.resolver.js';
import { startLoopbackNameServer } from '../support/loopback-name-server.js';
import { sendFromChildWithTcpPatch, sendOneEvent, testDispatcher } from '../support/webhook-dispatch.js';

it('a synchronous connect failure is a failed delivery, not a crash of the process', async () => {
  const { outcomes } = await sendFromChildWithTcpPatch({
    patch: `TCP.prototype.connect = function () { return -101; };   // ENETUNREACH, as with no route
            TCP.prototype.connect6 = function () { return -101; };`,
    addresses: ['2606:4700::1111'],
    webhookUrl: 'http://receiver.example:8080',
    allowLoopback: false,
  });
  expect(outcomes).toEqual(['failed connection_failed', 'failed connection_failed']);
}, 30000);

it('a silent first name server leaves time for the second', async () => {
  const silent = createSocket('udp4');
  await new Promise<void>((resolve) => silent.bind(0, '127.0.0.1', resolve));
  const good = await startLoopbackNameServer({ 'hook.test': { a: ['93.184.216.34'] } });
  try {
    const resolve = createWebhookNameResolver({
      servers: [`127.0.0.1:${(silent.address() as AddressInfo).port}`, good.address],
    });
    await expect(resolve('hook.test', 5000)).resolves.toEqual(['93.184.216.34']);
  } finally {
    silent.close();
    await good.close();
  }
}, 10000);

it('a name with thousands of addresses: only the first 64 are looked at, so a public one past them is not picked', async () => {
  const addresses = Array.from({ length: 2400 }, (_, i) => `10.0.${i >> 8}.${i & 255}`).concat(
    '93.184.216.34',
  );
  expect(MAX_ADDRESSES_LOOKED_AT).toBe(64);
  expect(
    await sendOneEvent(
      testDispatcher(async () => addresses),
      'http://many.example:8080',
    ),
  ).toEqual(['refused address_not_allowed:private']);
});

it('a name server that answers A but never AAAA: the A answer is used at once, not after the 5 s', async () => {
  const names = await startLoopbackNameServer({ 'half.hook.test': { a: ['93.184.216.34'] } });
  // A server that answers A only: the loopback one, with its AAAA questions dropped.
  names.dropQuestionsOfType('AAAA');
  try {
    const resolve = createWebhookNameResolver({ servers: [names.address] });
    const outcome = await Promise.race([
      resolve('half.hook.test', 5000),
      new Promise((r) => setTimeout(() => r('late'), 2500).unref()),
    ]);
    expect(outcome).toEqual(['93.184.216.34']);
  } finally {
    await names.close();
  }
}, 10000);
