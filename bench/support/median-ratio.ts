/**
 * Comparing two routes measured in alternating slices (bench/support/interleaved.ts): the median of
 * the rounds' own ratios, which one disturbed slice does not move, where the ratio of the summed rates
 * takes in every burst of other load on the shared machine.
 */

/** The median of the rounds' ratios `a ÷ b` (each round's two slices were taken back to back). */
export function medianRatio(
  a: { readonly sliceRates: readonly number[] },
  b: { readonly sliceRates: readonly number[] },
): number {
  if (a.sliceRates.length === 0 || a.sliceRates.length !== b.sliceRates.length)
    throw new Error('medianRatio needs the same number of rounds, at least one, on both sides');
  const ratios = a.sliceRates.map((rate, round) => rate / b.sliceRates[round]).sort((x, y) => x - y);
  const mid = ratios.length >> 1;
  return ratios.length % 2 === 1 ? ratios[mid] : (ratios[mid - 1] + ratios[mid]) / 2;
}
