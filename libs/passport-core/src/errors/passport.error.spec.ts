/**
 * The error type and the exported tables, as an integrator meets them: errors recognised as such, and
 * tables no caller can change for the rest of the process (two copies of the package:
 * test/package/core-two-copies.spec.ts).
 */
import { describeError, ERROR_CATALOGUE } from './error-catalogue.js';
import { isPassportError, PassportError } from './passport.error.js';
import { FAMILY_SIGNED_FIELDS } from '../family/family-signature.js';
import { MINT_TIERS } from '../signclient/mint-fee.js';
import { LOGIN_MODES } from '../login/login-mode.js';
import { WEBHOOK_HEADERS } from '../webhook/webhook-signature.js';
import { systemClock } from '../ports/clock.port.js';

describe('isPassportError', () => {
  it('recognises this copy’s errors and nothing else', () => {
    expect(isPassportError(new PassportError('INVALID_DID'))).toBe(true);
    expect(isPassportError(new Error('INVALID_DID'))).toBe(false);
    expect(isPassportError({ code: 'INVALID_DID', name: 'PassportError' })).toBe(false);
    expect(isPassportError(null)).toBe(false);
  });
});

// Found by a probe: describeError returned the live catalogue entry, and the exported tables could be
// edited by any caller for the whole process (FAMILY_SIGNED_FIELDS decides what a family signature covers).
describe('exported tables are frozen', () => {
  it.each([
    ['ERROR_CATALOGUE', ERROR_CATALOGUE],
    ['an ERROR_CATALOGUE entry', ERROR_CATALOGUE.INVALID_DID],
    ['describeError()', describeError('INVALID_DID')],
    ['FAMILY_SIGNED_FIELDS', FAMILY_SIGNED_FIELDS],
    ['MINT_TIERS', MINT_TIERS],
    ['LOGIN_MODES', LOGIN_MODES],
    ['WEBHOOK_HEADERS', WEBHOOK_HEADERS],
    ['systemClock', systemClock],
  ])('%s', (_name, table) => {
    expect(Object.isFrozen(table)).toBe(true);
  });
});
