/**
 * What a port contract suite needs from the test framework, passed in by the caller so that the core
 * depends on none: Jest's and Vitest's `describe`, `it`, `expect`, `beforeEach` and `afterEach` both fit
 * (`describeReplayStoreContract({ describe, it, expect, beforeEach, afterEach }, adapter)`).
 * The types below name only what the suites use.
 */

/** The matchers the suites use; Jest's and Vitest's `expect(value)` both provide them. */
export interface ContractMatchers<R = unknown> {
  toBe(expected: unknown): R;
  toEqual(expected: unknown): R;
  toMatchObject(expected: object): R;
  toHaveLength(length: number): R;
  toBeNull(): R;
  toBeInstanceOf(expected: abstract new (...args: never[]) => unknown): R;
  toBeGreaterThan(expected: number): R;
  toBeGreaterThanOrEqual(expected: number): R;
  toBeLessThan(expected: number): R;
  toContain(expected: unknown): R;
  toMatch(expected: RegExp | string): R;
  toThrow(expected?: unknown): R;
}

export interface ContractExpectation extends ContractMatchers {
  readonly not: ContractMatchers;
  readonly resolves: ContractMatchers<PromiseLike<unknown>> & {
    readonly not: ContractMatchers<PromiseLike<unknown>>;
  };
  readonly rejects: ContractMatchers<PromiseLike<unknown>>;
}

/** Every test and hook body of the suites is async. */
type Body = () => Promise<void>;

export interface ContractTestApi {
  describe(name: string, body: () => void): unknown;
  it(name: string, body: Body, timeoutMs?: number): unknown;
  expect(actual: unknown): ContractExpectation;
  beforeEach(body: Body): unknown;
  afterEach(body: Body): unknown;
}

/**
 * One opened adapter under test. `openPeer` and `restart` are for adapters over shared, durable storage
 * (a database file, a server): a second instance on the same storage, and the same storage opened again
 * after closing everything; single-process adapters return null and the suites skip those parts.
 */
export interface ContractHarness<S> {
  readonly store: S;
  openPeer(): S | null | Promise<S | null>;
  restart(): S | null | Promise<S | null>;
  close(): void | Promise<void>;
}

/** Settings a suite asks for when it opens an adapter (each adapter maps them to its own options). */
export interface ContractStoreOptions {
  /** Cap of the store under test (records, sessions or buckets). */
  readonly maxEntries?: number | undefined;
  /** Session stores only: open sessions per passport. */
  readonly maxOpenPerPassport?: number | undefined;
}

/** The adapter family under test: its name (shown in the suite's title) and how to open one. */
export interface ContractAdapter<S, H extends ContractHarness<S> = ContractHarness<S>> {
  readonly name: string;
  /** True when `openPeer` and `restart` work (shared durable storage): the suite adds those tests. */
  readonly sharedStorage: boolean;
  open(options?: ContractStoreOptions): H | Promise<H>;
}

/**
 * The harness of an adapter that lives in one process (no shared storage: `sharedStorage: false`), with
 * whatever the suite observes besides the port: `singleProcessHarness(store, { size: () => store.size })`.
 */
export function singleProcessHarness<S, X extends object = object>(
  store: S,
  extras?: X,
  close: () => void | Promise<void> = () => undefined,
): ContractHarness<S> & X {
  return { ...(extras as X), store, openPeer: () => null, restart: () => null, close };
}
