/**
 * @module @passport/adapters/sqlite
 * The SQLite store adapters (replay records, sessions, rate-limit buckets) on one database file.
 * Loads better-sqlite3 (an optional peer dependency): import this subpath only where SQLite is used.
 */
export * from './sqlite.database.js';
export * from './wal-checkpointer.js';
export * from './write-lock.queue.js';
export * from './sqlite-store.options.js';
export * from './sqlite-replay.store.js';
export * from './sqlite-session.store.js';
export * from './sqlite-rate-limit.store.js';
export * from './sqlite-login.recorder.js';
export * from './sqlite-store.history.js';
export { SCHEMA_VERSION, type SchemaMigration } from './sqlite.schema.js';
export { DETACHED_CLOSE_PROBLEM } from './detached-close.problem.js';
