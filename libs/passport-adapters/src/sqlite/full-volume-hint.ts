/**
 * Why a database could not be prepared, when the volume holding it is full: SQLite's own words for that
 * are not always "full".
 */
import { statfsSync } from 'node:fs';
import { dirname } from 'node:path';

/** Free bytes below which a failed write is put down to a full volume. */
export const NEARLY_FULL_BYTES = 16 * 1024 * 1024;

/** Free bytes on the volume holding `directory` for an unprivileged writer. */
function freeBytesOf(directory: string): number {
  const volume = statfsSync(directory);
  return volume.bavail * volume.bsize;
}

/**
 * SQLite reports a write that ran out of room while it rebuilt the WAL index (a restart after a crash on
 * a full disk) as "disk I/O error", which sent a probe's operator looking for broken hardware: when the
 * volume is (nearly) full, say so.
 */
export function fullVolumeHint(file: string, reason: string, freeBytes = freeBytesOf): string {
  if (!/disk I\/O error|database or disk is full/i.test(reason)) return '';
  let free: number;
  try {
    free = freeBytes(dirname(file));
  } catch {
    return '';
  }
  return free < NEARLY_FULL_BYTES
    ? ` (the volume holding it is full: ${Math.floor(free / 1024)} KiB free; free space and start again)`
    : '';
}
