/**
 * @module ports/store-cap
 * The caps every store adapter takes (`maxEntries`, `maxOpenPerPassport`, `maxKeys`…) are positive
 * integers: a cap of 0 would refuse every write, and NaN would disable the bound (no count is ever
 * `>= NaN`), so an adapter refuses both when it is built.
 */
export function positiveCap(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer`);
  return value;
}
