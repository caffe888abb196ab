/**
 * Wraps a store port so that every failing operation (a thrown error or a rejected promise) is counted
 * for the operators' `passport_store_errors_total{store, operation}` before the error goes on unchanged.
 * A store's refusals by policy (a full replay store, a sender at its quota, sessions at capacity) and its
 * decided pauses (the hold after a loss of replay records, which health reports) are answers, not
 * failures: they have their own figures and are not counted here.
 * The wrapper inherits from the store (prototype), so `instanceof` and non-method properties still work.
 */
import { PassportError } from '@passport/core/errors';
import { RecordingPausedError, SessionCapacityError } from '@passport/core/ports';
import { type StoreName } from '../metrics/operator-metrics.js';

/** A refusal the store decided (not a failure): by policy, or a pause with a known end (a hold after a loss). */
export const isPolicyRefusal = (error: unknown): boolean =>
  error instanceof PassportError ||
  error instanceof SessionCapacityError ||
  error instanceof RecordingPausedError;

export type StoreErrorSink = (store: StoreName, operation: string) => void;

function methodNames(target: object): string[] {
  const names = new Set<string>();
  for (
    let proto: object | null = target;
    proto && proto !== Object.prototype;
    proto = Object.getPrototypeOf(proto) as object | null
  ) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      if (name === 'constructor') continue;
      const descriptor = Object.getOwnPropertyDescriptor(proto, name);
      if (descriptor && typeof descriptor.value === 'function') names.add(name);
    }
  }
  return [...names];
}

export function countingStoreErrors<T extends object>(store: T, name: StoreName, sink: StoreErrorSink): T {
  const wrapped = Object.create(store) as Record<string, unknown>;
  const target = store as Record<string, (...args: unknown[]) => unknown>;
  for (const operation of methodNames(store)) {
    const method = target[operation];
    // A synchronous variant (getSync, takeSync, createSync) is the same operation for the operators:
    // one label, so that alerts on `get` still fire when the hot path reads synchronously.
    const label = operation.length > 4 && operation.endsWith('Sync') ? operation.slice(0, -4) : operation;
    const onRejected = (error: unknown): never => {
      if (!isPolicyRefusal(error)) sink(name, label);
      throw error;
    };
    wrapped[operation] = (...args: unknown[]): unknown => {
      let result: unknown;
      try {
        result = method.apply(store, args);
      } catch (error) {
        return onRejected(error);
      }
      return result instanceof Promise ? result.catch(onRejected) : result;
    };
  }
  return wrapped as T;
}
