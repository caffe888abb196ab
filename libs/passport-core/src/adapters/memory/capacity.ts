/**
 * @module adapters/memory/capacity
 * Validation of the caps every in-memory store takes (a cap of 0 or NaN would silently disable storage).
 */
export function positiveInteger(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer`);
  return value;
}
