/**
 * The core's typed errors made by another copy of @passport/core (the adapters pin the exact core version
 * they were built with, so an application whose core differs has two). `instanceof` is false across
 * copies; the core tells them by a `Symbol.for` mark each class carries (as `isPassportError` does), so a
 * paused store keeps its Retry-After and a full session store its own refusal.
 */
import {
  RecordingPausedError,
  SessionCapacityError,
  isChainUnavailableError,
  isLoginRecordFailure,
  isRecordingPausedError,
  isSessionCapacityError,
  retryAfterSecondsOfPause,
  type ReplayStore,
  type SessionStore,
} from '@passport/core/ports';
import { sequentialLoginRecorder } from '@passport/core';
import { sampleSessionRecord } from '@passport/core/testing';

/** A class as another copy of the package makes it: same name and mark, another class. */
function otherCopyOf<T extends new (...args: never[]) => Error>(type: T, name: string): T {
  const copy = class extends (type as unknown as new (...args: unknown[]) => Error) {};
  Object.setPrototypeOf(copy.prototype, Error.prototype);
  Object.defineProperty(copy.prototype, Symbol.for(`@passport/core.${name}`), { value: true });
  return copy as unknown as T;
}

it('a paused store of another copy keeps its Retry-After', () => {
  const Paused = otherCopyOf(RecordingPausedError, 'RecordingPausedError');
  const paused = new Paused('held after a loss', 4_200);
  expect(paused).not.toBeInstanceOf(RecordingPausedError);
  expect(isRecordingPausedError(paused)).toBe(true);
  expect(retryAfterSecondsOfPause(paused)).toBe(5);
});

it("a full session store of another copy is passed on as the store's refusal, not a LoginRecordFailure", async () => {
  const Full = otherCopyOf(SessionCapacityError, 'SessionCapacityError');
  const challenges: ReplayStore = { recordIfAbsent: () => Promise.resolve({ recorded: true }) };
  const sessions = {
    create: () => Promise.reject(new Full(10)),
  } as unknown as SessionStore;
  const recorder = sequentialLoginRecorder(challenges, sessions);
  const now = Date.now();
  const error = await recorder
    .recordLogin({ key: 'login|x|1', nowMs: now, expiresAtMs: now + 60_000 }, sampleSessionRecord(1))
    .catch((e: unknown) => e);
  expect(isSessionCapacityError(error)).toBe(true);
  expect(isLoginRecordFailure(error)).toBe(false);
});

it('the checks are false for plain errors and for errors of another name', () => {
  for (const check of [
    isChainUnavailableError,
    isRecordingPausedError,
    isSessionCapacityError,
    isLoginRecordFailure,
  ]) {
    expect(check(new Error('x'))).toBe(false);
    expect(check({ name: 'ChainUnavailableError' })).toBe(false);
    expect(check(undefined)).toBe(false);
  }
});
