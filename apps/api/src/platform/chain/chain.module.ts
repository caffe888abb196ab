/**
 * The chain adapter family (exported through the platform module): `CHAIN_READER` (the local ledger or NEAR JSON-RPC, chosen by
 * `CHAIN`, behind a short cache), `CHAIN_HEALTH_INDICATOR`, `SERVER_IDENTITY` and the resolved
 * `TRUSTED_CONTRACTS`. With the ledger, the development family is created on first start
 * (`ensureDevFamily` of @passport/adapters/ledger); with NEAR, missing keys stop the start with one line.
 */
import { Inject, Injectable, Logger, Module, type OnApplicationShutdown } from '@nestjs/common';
import { type ChainReader } from '@passport/core';
import { type AppConfig } from '../config/app-config.js';
import { ensureDevFamily, LedgerChainReader } from '@passport/adapters/ledger';
import {
  APP_CONFIG,
  CHAIN_CACHE,
  CHAIN_HEALTH_INDICATOR,
  CHAIN_READER,
  SERVER_IDENTITY,
  TRUSTED_CONTRACTS,
} from '../infrastructure/di-tokens.js';
import { type HealthIndicator } from '../infrastructure/health-indicator.js';
import { type ServerIdentity } from '../infrastructure/server-identity.js';
import { CachingChainReader } from '@passport/adapters/caching';
import { ChainHealthIndicator } from './chain.health-indicator.js';
import { loadServerIdentity } from './server-identity.loader.js';
import { ServerPassportCheck } from './server-passport.check.js';
import { resolveTrustedContracts } from './trusted-contracts.js';
import { ServerUrlCheck, serverUrlMismatch, serverUrlWarning } from './server-url.check.js';

/** Internal token: the opened adapter before caching (health checks must reach the real chain). */
const CHAIN_ADAPTER = Symbol('CHAIN_ADAPTER');

/** Opens the configured chain adapter (creating the development family first when CHAIN=ledger). */
export async function openChainAdapter(
  config: AppConfig,
  logger = new Logger('Chain'),
): Promise<ChainReader> {
  if (config.chain === 'near') {
    // near-api-js loads only when CHAIN=near (a ledger server never needs it).
    const { NearChainReader } = await import('@passport/adapters/near');
    return new NearChainReader({
      rpcUrl: config.nearRpcUrl as string,
      contractId: config.nearContractId as string,
      methods: config.nearViewMethods,
    });
  }
  await ensureDevFamily(config, { log: (line) => logger.log(line) });
  return LedgerChainReader.open(config.ledgerFile, {
    log: { log: (m) => logger.log(m), warn: (m) => logger.warn(m) },
  });
}

/** Closes the ledger's directory watch on shutdown. */
@Injectable()
class ChainLifecycle implements OnApplicationShutdown {
  constructor(@Inject(CHAIN_ADAPTER) private readonly adapter: ChainReader) {}

  onApplicationShutdown(): void {
    if (this.adapter instanceof LedgerChainReader) this.adapter.close();
  }
}

@Module({
  providers: [
    {
      provide: CHAIN_ADAPTER,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig): Promise<ChainReader> => openChainAdapter(config),
    },
    // The reader every feature uses is the cache over the adapter: one object, under both tokens.
    {
      provide: CHAIN_CACHE,
      inject: [CHAIN_ADAPTER],
      useFactory: (adapter: ChainReader): CachingChainReader => new CachingChainReader(adapter),
    },
    { provide: CHAIN_READER, useExisting: CHAIN_CACHE },
    {
      provide: ServerPassportCheck,
      inject: [SERVER_IDENTITY, CHAIN_READER, TRUSTED_CONTRACTS],
      useFactory: (
        server: ServerIdentity,
        chain: ChainReader,
        trusted: readonly string[],
      ): ServerPassportCheck => new ServerPassportCheck(server, chain, trusted),
    },
    {
      provide: ServerUrlCheck,
      inject: [APP_CONFIG, SERVER_IDENTITY, CHAIN_READER],
      useFactory: (config: AppConfig, server: ServerIdentity, chain: ChainReader): ServerUrlCheck => {
        // Said once at start, from the passport just read; health says it again while it holds.
        const mismatch = serverUrlMismatch(server.passport.metadata, config.publicBaseUrl);
        if (mismatch) new Logger('Chain').warn(serverUrlWarning(config.chain, mismatch));
        return new ServerUrlCheck(server, chain, config.publicBaseUrl);
      },
    },
    {
      provide: CHAIN_HEALTH_INDICATOR,
      inject: [APP_CONFIG, CHAIN_ADAPTER, ServerPassportCheck, ServerUrlCheck],
      useFactory: (
        config: AppConfig,
        adapter: ChainReader,
        serverPassport: ServerPassportCheck,
        serverUrl: ServerUrlCheck,
      ): HealthIndicator => new ChainHealthIndicator(config.chain, adapter, serverPassport, serverUrl),
    },
    {
      provide: SERVER_IDENTITY,
      inject: [APP_CONFIG, CHAIN_READER],
      useFactory: (config: AppConfig, chain: ChainReader): Promise<ServerIdentity> =>
        loadServerIdentity(config.serverCredentialsFile, chain),
    },
    {
      // TRUSTED_CONTRACTS unset means "the configured contract": for the ledger that is its own contractId.
      // A set without the server passport's contract stops the start (trusted-contracts.ts).
      provide: TRUSTED_CONTRACTS,
      inject: [APP_CONFIG, SERVER_IDENTITY],
      useFactory: (config: AppConfig, server: ServerIdentity): readonly string[] =>
        resolveTrustedContracts(config, server.passport),
    },
    ChainLifecycle,
  ],
  exports: [
    CHAIN_READER,
    CHAIN_CACHE,
    CHAIN_HEALTH_INDICATOR,
    SERVER_IDENTITY,
    TRUSTED_CONTRACTS,
    ServerPassportCheck,
  ],
})
export class ChainModule {}
