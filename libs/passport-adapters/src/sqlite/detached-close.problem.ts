/**
 * What the message of a detached database's close left undone starts with (`closeUnderGuard` tells it
 * through `onCheckpointError`): the app logs it apart from checkpoint failures. A module of its own, so
 * that the public entry reaches no declaration that names a better-sqlite3 type.
 */
export const DETACHED_CLOSE_PROBLEM = 'detached database close:';
