/**
 * Medians of bench samples: rates, latencies, ratios. A median is what the benches report wherever
 * samples were taken in rounds, since one sample cut by a burst of other load on the shared machine does
 * not move it.
 */

/** The median (the mean of the two middle values for an even count). */
export function median(xs: readonly number[]): number {
  if (xs.length === 0) throw new Error('median of no samples');
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * The median of the rounds' ratios `a ÷ b` of two routes measured in alternating slices
 * (bench/support/interleaved.ts; each round's two slices were taken back to back), where the ratio of
 * the summed rates takes in every burst of other load.
 */
export function medianRatio(
  a: { readonly sliceRates: readonly number[] },
  b: { readonly sliceRates: readonly number[] },
): number {
  if (a.sliceRates.length === 0 || a.sliceRates.length !== b.sliceRates.length)
    throw new Error('medianRatio needs the same number of rounds, at least one, on both sides');
  return median(a.sliceRates.map((rate, round) => rate / b.sliceRates[round]));
}
