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
const { sendOneEvent, testDispatcher } = await import('../support/webhook-dispatch.js');

it('one read of the interfaces for an event whose name has many addresses', async () => {
  const addresses = Array.from({ length: 60 }, (_, i) => `10.0.0.${i + 1}`);
  expect(
    await sendOneEvent(
      testDispatcher(async () => addresses),
      'http://many.example:8080',
    ),
  ).toEqual(['refused address_not_allowed:private']);
  expect(reads).toBe(1);
});
