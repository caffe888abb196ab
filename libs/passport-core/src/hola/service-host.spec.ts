import fc from 'fast-check';
import { isServiceHostMarker } from './service-host.js';

describe('isServiceHostMarker', () => {
  it.each([
    'localhost',
    'localhost:3000',
    'api.identyclaw.com',
    'API.IDENTYCLAW.COM',
    'passport.example:8443',
    '10.0.0.5:8443',
    'xn--bcher-kva.example',
    'a'.repeat(63) + '.example',
    'h:65535',
    'h:1',
  ])('takes %s', (marker) => expect(isServiceHostMarker(marker)).toBe(true));

  // Found by probes: each character was checked alone, so markers no host has were taken; a marker over
  // 253 characters leaves no room in a 512-character line.
  it.each([
    '',
    '..',
    '-',
    'api..example.com',
    '-api.example.com',
    'api-.example.com',
    'api.example.com.',
    'api.example.com:',
    'api.example.com:0',
    'api.example.com:080',
    'api.example.com:65536',
    'api.example.com:99999',
    'api.example.com/path',
    'my_host',
    'a'.repeat(64) + '.example',
    `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}`,
    'host\nname',
    '[::1]:8443',
  ])('refuses %j', (marker) => expect(isServiceHostMarker(marker)).toBe(false));

  it('refuses any value that is not a string, and never throws', () => {
    fc.assert(
      fc.property(fc.anything(), (value) => {
        expect(typeof isServiceHostMarker(value)).toBe('boolean');
        if (typeof value !== 'string') expect(isServiceHostMarker(value)).toBe(false);
      }),
    );
  });
});
