/**
 * The Redis harness of the port contract suites, on any client: one redis-server (store-adapters.ts)
 * or a Redis Cluster (redis-cluster.spec.ts). Every store is opened on a client of its own; each harness
 * gets a fresh key prefix on the shared storage, and a restart closes every client and opens a new one.
 */
import { type ContractHarness, type ContractStoreOptions } from '@passport/core/testing';

type PortHarness = keyof ContractHarness<unknown>;

/** A contract harness (synchronous here) plus the database file, for adapters that have one. */
export type Harness<S, H> = Omit<H, PortHarness> & {
  readonly store: S;
  openPeer(): S | null;
  restart(): S | null;
  close(): void;
  readonly file: string | null;
};

/** An adapter family under test, as the contract suites take it (`ContractAdapter`). */
export interface AdapterKind<S, H> {
  readonly name: 'memory' | 'sqlite' | 'redis';
  readonly sharedStorage: boolean;
  open(options?: ContractStoreOptions): Harness<S, H>;
}

/** What each harness reads from its (first) store besides the port. */
export type Inspect<S, H> = (store: S) => Omit<H, PortHarness>;

let harnesses = 0;

export function redisKind<C extends { disconnect(): void }, S, H>(
  connectClient: () => C,
  make: (client: C, prefix: string, options: ContractStoreOptions) => S,
  inspect: Inspect<S, H>,
): AdapterKind<S, H> {
  return {
    name: 'redis',
    sharedStorage: true,
    open(options = {}) {
      const prefix = `t${++harnesses}:`;
      const clients: C[] = [];
      const connect = (): S => {
        const client = connectClient();
        clients.push(client);
        return make(client, prefix, options);
      };
      const closeAll = (): void => {
        for (const client of clients.splice(0)) client.disconnect();
      };
      const store = connect();
      return {
        ...inspect(store),
        store,
        openPeer: connect,
        restart: () => {
          closeAll();
          return connect();
        },
        file: null,
        close: closeAll,
      };
    },
  };
}
