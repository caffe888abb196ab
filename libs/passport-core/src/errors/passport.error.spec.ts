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
import { REQUIRED_LOGIN_METADATA } from '../passport/passport-conditions.js';
import { WEBHOOK_HOOK_PATHS } from '../webhook/webhook-target.js';
import { DID_CONTEXTS } from '../did/did-document.js';
import { HOLA_REASON_CODES } from '../hola/hola.types.js';
import { VERIFY_FAILURE_REASONS } from '../verify/verify-hola.types.js';
import { FACE_CATEGORIES, LEGACY_EVEN_LETTERS } from '../token-id/face-categories.js';

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
    // A review: these were still mutable (REQUIRED_LOGIN_METADATA decides what a login requires).
    ['REQUIRED_LOGIN_METADATA', REQUIRED_LOGIN_METADATA],
    ['WEBHOOK_HOOK_PATHS', WEBHOOK_HOOK_PATHS],
    ['DID_CONTEXTS', DID_CONTEXTS],
    ['HOLA_REASON_CODES', HOLA_REASON_CODES],
    ['VERIFY_FAILURE_REASONS', VERIFY_FAILURE_REASONS],
    ['FACE_CATEGORIES', FACE_CATEGORIES],
    ['a FACE_CATEGORIES entry', FACE_CATEGORIES[3]],
    ["a FACE_CATEGORIES entry's values", FACE_CATEGORIES[3].values],
    ['LEGACY_EVEN_LETTERS', LEGACY_EVEN_LETTERS],
  ])('%s', (_name, table) => {
    expect(Object.isFrozen(table)).toBe(true);
  });
});
