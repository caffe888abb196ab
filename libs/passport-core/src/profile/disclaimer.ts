/**
 * @module profile/disclaimer
 * The warning every listing of self-declared passport data carries (spec: agents list, full identity).
 */
export const SELF_DECLARED_DISCLAIMER =
  'Creature, display name, contact URIs, avatar, emoji, webhook URL and other metadata are self-declared by the ' +
  'passport holder and are not verified by this service. Only the token id, its current on-chain owner and ' +
  'signatures checked against that owner are verified.';
