/**
 * Wraps a store port so that every failing operation (a thrown error or a rejected promise) is counted
 * for the operators' `passport_store_errors_total{store, operation}` before the error goes on unchanged.
 * The wrapper inherits from the store (prototype), so `instanceof` and non-method properties still work.
 */
import { type StoreName } from '../metrics/operator-metrics.js';

export type StoreErrorSink = (store: StoreName, operation: string) => void;

function methodNames(target: object): string[] {
  const names = new Set<string>();
  for (let proto: object | null = target; proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto) as object | null) {
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
    const onRejected = (error: unknown): never => {
      sink(name, operation);
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
