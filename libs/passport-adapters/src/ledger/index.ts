/**
 * @module @passport/adapters/ledger
 * The local JSON ledger: its file format (parse, serialize, locked atomic updates), the ChainReader
 * over it, the development family created on a server's first start, and the family mint that
 * `passport mint` and that first start share. Needs Node's fs only.
 */
export * from './ledger-file.js';
export * from './ledger-chain.reader.js';
export * from './family-mint.js';
export * from './dev-family.js';
