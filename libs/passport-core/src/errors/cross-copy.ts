/**
 * @module errors/cross-copy
 * Tells the core's error classes across copies of this package (two installs, a bundler's duplicate):
 * `instanceof` is false for an error made by another copy, so a typed error (a store's refusal, a chain
 * outage) would read as an unexpected one. Each class is marked with a `Symbol.for` key, which every
 * copy shares.
 */

/**
 * Marks the instances of `type` with `Symbol.for(key)` and returns a test that is true for an instance
 * of `type` made by any copy of the package.
 */
export function crossCopyCheck<T extends Error>(
  type: abstract new (...args: never[]) => T,
  key: string,
): (value: unknown) => value is T {
  const mark = Symbol.for(key);
  Object.defineProperty(type.prototype, mark, { value: true });
  return (value: unknown): value is T =>
    value instanceof type ||
    (value instanceof Error && (value as unknown as Record<symbol, unknown>)[mark] === true);
}
