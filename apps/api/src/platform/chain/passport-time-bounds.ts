/**
 * `hasPassportTimeBounds`, remembered per record: the chain cache hands out the same record object for
 * ≤ 5 s, and the JWT tier asks for every request (the holder's passport and the server's), so the dates
 * are parsed once per record rather than per request.
 */
import { type PassportRecord } from '@passport/core';
import { hasPassportTimeBounds } from '@passport/core/passport';

const bounded = new WeakMap<PassportRecord, boolean>();

export function hasTimeBounds(passport: PassportRecord): boolean {
  let known = bounded.get(passport);
  if (known === undefined) {
    known = hasPassportTimeBounds(passport.metadata);
    bounded.set(passport, known);
  }
  return known;
}
