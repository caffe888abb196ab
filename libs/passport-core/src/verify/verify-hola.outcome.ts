/**
 * @module verify/verify-hola.outcome
 * The verify body with the intermediate facts attached where serialisation cannot see them: in a
 * private field behind a getter on the prototype. JSON.stringify, object spread and Object.keys see
 * own enumerable properties only, so `facts` never reaches the wire; and unlike a non-enumerable
 * property added with Object.defineProperty (a runtime call on every verification), a private field
 * is an ordinary store.
 *
 * The body's fields are declared, not initialised, so each exists only once the use case sets it, in
 * the documented key order.
 */
import {
  type VerifyFailureReason,
  type VerifyHolaBody,
  type VerifyHolaChecks,
  type VerifyHolaFacts,
  type VerifyHolaResult,
  type VerifyHolaWarning,
} from './verify-hola.types.js';
import { type PublicProfile } from '../profile/public-profile.js';

export class VerifyHolaOutcome implements VerifyHolaResult {
  declare verified: boolean;
  declare peerTokenId: string;
  declare destinatary: string;
  declare checks: VerifyHolaChecks;
  declare failureReasons: VerifyFailureReason[];
  declare failureDetails: { reasonCode: VerifyFailureReason; hint: string }[];
  declare nonceReplayDetails?: VerifyHolaBody['nonceReplayDetails'];
  declare signatureVerificationImplemented: true;
  declare warnings?: VerifyHolaWarning[];
  declare isSubagentFormat?: true;
  declare delegateId?: string;
  declare issuerTokenId?: string;
  declare profile?: PublicProfile;
  readonly #facts: VerifyHolaFacts;

  constructor(facts: VerifyHolaFacts) {
    this.#facts = facts;
  }

  /** What verification found out (never serialised). */
  get facts(): VerifyHolaFacts {
    return this.#facts;
  }
}
