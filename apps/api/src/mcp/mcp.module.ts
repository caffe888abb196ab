/**
 * The MCP surface of the service: the `/mcp` streamable-HTTP endpoint (the stateless 2026-07-28 era
 * served per request; the sessioned era with one transport and one McpServer per session, capped and
 * idle-evicted) and the same documentation over REST
 * (`/api/mcp/*`). Documentation only: nothing here logs anyone in. Needs `APP_CONFIG` and
 * `PUBLIC_RATE_LIMIT_STORE` (from the platform module) and the live document sources below.
 */
import { Inject, Logger, Module, type OnModuleDestroy, Optional } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { type ChainReader } from '@passport/core';
import { printableText } from '@passport/core/codecs';
import { type AppConfig } from '../platform/config/app-config.js';
import { APP_NAME, APP_VERSION } from '../platform/config/app-version.js';
import { PlatformModule } from '../platform/platform.module.js';
import { APP_CONFIG, CHAIN_READER, MCP_FLEET_SESSIONS } from '../platform/infrastructure/di-tokens.js';
import { OperatorMetrics } from '../platform/metrics/operator-metrics.js';
import { DrainListeners } from '../platform/lifecycle/drain-listeners.js';
import { createLiveDocuments } from './live-documents.js';
import { McpHostAllowlist } from './mcp-host.allowlist.js';
import { type LiveDocumentSources, McpResourceCatalog } from './mcp-resource.catalog.js';
import { McpResourcesController } from './mcp-resources.controller.js';
import { createMcpServer, createStatelessMcpServer, type McpServerFactory } from './mcp-server.factory.js';
import { McpSessionRegistry } from './mcp-session.registry.js';
import { type McpFleetSessions, type McpSessionStore } from './mcp-session.store.js';
import { McpStatelessEndpoint } from './mcp-stateless.endpoint.js';
import { McpTransportController } from './mcp-transport.controller.js';
import {
  MCP_HOST_ALLOWLIST,
  MCP_LIVE_DOCUMENTS,
  MCP_RESOURCE_CATALOG,
  MCP_SERVER_FACTORY,
  MCP_SESSION_REGISTRY,
  MCP_STATELESS_ENDPOINT,
} from './mcp.di-tokens.js';

const liveDocuments = {
  provide: MCP_LIVE_DOCUMENTS,
  useFactory: (chain: ChainReader, config: AppConfig, moduleRef: ModuleRef): LiveDocumentSources =>
    createLiveDocuments({ chain, publicBaseUrl: config.publicBaseUrl, moduleRef }),
  inject: [CHAIN_READER, APP_CONFIG, ModuleRef],
};

@Module({
  imports: [PlatformModule],
  controllers: [McpTransportController, McpResourcesController],
  providers: [
    liveDocuments,
    {
      provide: MCP_RESOURCE_CATALOG,
      useFactory: (live: LiveDocumentSources) => new McpResourceCatalog(live),
      inject: [MCP_LIVE_DOCUMENTS],
    },
    {
      provide: MCP_SERVER_FACTORY,
      useFactory:
        (catalog: McpResourceCatalog): McpServerFactory =>
        () =>
          createMcpServer(catalog, { name: APP_NAME, version: APP_VERSION }),
      inject: [MCP_RESOURCE_CATALOG],
    },
    {
      provide: MCP_SESSION_REGISTRY,
      useFactory: (config: AppConfig) =>
        new McpSessionRegistry({
          maxSessions: config.mcpMaxSessions,
          maxSessionsPerAddress: config.mcpMaxSessionsPerAddress,
          ttlMs: config.mcpSessionTtlMs,
          reclaimIdleMs: config.mcpSessionReclaimIdleMs,
        }),
      inject: [APP_CONFIG],
    },
    {
      provide: MCP_STATELESS_ENDPOINT,
      useFactory: (catalog: McpResourceCatalog, config: AppConfig) => {
        const logger = new Logger('Mcp');
        return new McpStatelessEndpoint(
          () => createStatelessMcpServer(catalog, { name: APP_NAME, version: APP_VERSION }),
          {
            endpointUrl: `${config.publicBaseUrl}/mcp`,
            // Requests the SDK rejects are answered in the revision's error form; this only reports them.
            // The SDK's message quotes the client's headers and method as sent: bounded and printable.
            onError: (error) =>
              logger.debug(`stateless MCP request rejected or failed: ${printableText(error.message, 512)}`),
          },
        );
      },
      inject: [MCP_RESOURCE_CATALOG, APP_CONFIG],
    },
    {
      provide: MCP_HOST_ALLOWLIST,
      useFactory: (config: AppConfig) => new McpHostAllowlist(config.publicBaseUrl, config.corsOrigins),
      inject: [APP_CONFIG],
    },
  ],
  exports: [MCP_SESSION_REGISTRY, MCP_RESOURCE_CATALOG],
})
export class McpModule implements OnModuleDestroy {
  constructor(
    @Inject(MCP_SESSION_REGISTRY) private readonly sessions: McpSessionStore,
    @Inject(MCP_STATELESS_ENDPOINT) private readonly stateless: McpStatelessEndpoint,
    metrics: OperatorMetrics,
    drain: DrainListeners,
    @Optional() @Inject(MCP_FLEET_SESSIONS) fleet: McpFleetSessions | null = null,
  ) {
    metrics.countMcpSessionsWith(fleet ? () => fleet.countLive() : () => sessions.size);
    // A fleet session has no event stream (405); one instance's would hold the drain to its timeout.
    drain.onStoppedAccepting(() => sessions.endEventStreams());
  }

  /** Closes every open session (and its SSE stream) and in-flight stateless exchange before the HTTP server stops, so close() does not wait on open streams. */
  async onModuleDestroy(): Promise<void> {
    await Promise.all([this.sessions.closeAll(), this.stateless.close()]);
  }
}
