/**
 * Property law of the CLI's delegate id check (`hola --subagent`, `delegate --delegate-id`): it accepts
 * exactly the ids the server's isauthorizedsigner rule accepts, so a refused id is refused with the
 * flag's own message (`--delegate-id must …`), never with a bare ISAUTHORIZEDSIGNER_… code or a
 * "1 to 128 characters" message for an id of 100.
 */
import fc from 'fast-check';
import { encodeBase64Url } from '@passport/core/codecs';
import { validateDelegationRequest } from '@passport/core/delegation';
import { CliError, checkDelegateId } from '../../apps/cli/src/cli-context.js';

const accepted = (id: string) => {
  try {
    validateDelegationRequest({
      tokenId: 'bjbvcjzqbdsj',
      base64HashOrDelegateSignerId: id,
      unixTimestamp: 1,
      publicKey: encodeBase64Url(new Uint8Array(32)),
      signature: encodeBase64Url(new Uint8Array(64)),
    });
    return true;
  } catch {
    return false;
  }
};
const cliAccepts = (id: string) => {
  try {
    checkDelegateId(id, '--delegate-id');
    return true;
  } catch (error) {
    expect(error).toBeInstanceOf(CliError);
    return false;
  }
};

describe('CLI delegate id laws', () => {
  it('oracle: checkDelegateId accepts exactly what the server accepts', () => {
    const id = fc.oneof(
      fc.string({ unit: 'grapheme', minLength: 1, maxLength: 8 }),
      fc.string({
        unit: fc.constantFrom('a', 'ß', '\u3000', '\u3164', '\ue000', '\ufe0f', ' ', '/', '\u200d'),
        minLength: 1,
        maxLength: 100,
      }),
    );
    fc.assert(
      fc.property(id, (text) => {
        expect({ id: text, cli: cliAccepts(text) }).toEqual({ id: text, cli: accepted(text) });
      }),
      { numRuns: 2000 },
    );
  });
});
