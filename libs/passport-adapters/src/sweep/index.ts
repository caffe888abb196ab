/**
 * @module @passport/adapters/sweep
 * The unref'd background sweep the bounded stores use to release expired entries. Needs nothing.
 */
export * from './periodic-sweep.js';
