/**
 * Whether a moment (wall ms) lies within the last `windowMs` before `nowMs`. One stamped ahead of now
 * (before the clock was set back) is not recent: health had said "failed in the last 10 s" for as long
 * as a day's step back lasted (a clock-step probe).
 */
export function withinLast(atMs: number | null, nowMs: number, windowMs: number): boolean {
  if (atMs === null) return false;
  const age = nowMs - atMs;
  return age >= 0 && age < windowMs;
}
