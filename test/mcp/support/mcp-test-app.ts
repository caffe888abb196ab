/**
 * Starts the MCP surface inside a real Nest+Fastify app for the MCP tests: the real configuration,
 * HTTP (error envelope), OpenAPI, chain (development ledger family in a temp DATA_DIR), store
 * (memory) and MCP modules, listening on 127.0.0.1 port 0. Same shape as the team's
 * `startTestApp()`; used only until that helper (and the full app factory) is available, so that
 * switching is a one-line import change.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DynamicModule, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { ChainModule } from '../../../apps/api/src/chain/chain.module.js';
import { type AppConfig, loadConfig } from '../../../apps/api/src/config/app-config.js';
import { ConfigModule } from '../../../apps/api/src/config/config.module.js';
import { HttpModule } from '../../../apps/api/src/http/http.module.js';
import { McpModule } from '../../../apps/api/src/mcp/mcp.module.js';
import { OpenApiDocumentService } from '../../../apps/api/src/openapi/openapi-document.service.js';
import { OpenApiModule } from '../../../apps/api/src/openapi/openapi.module.js';
import { StoreModule } from '../../../apps/api/src/store/store.module.js';

export interface McpTestApp {
  readonly baseUrl: string;
  readonly app: NestFastifyApplication;
  readonly dataDir: string;
  close(): Promise<void>;
}

@Module({})
class McpTestRootModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: McpTestRootModule,
      imports: [ConfigModule.forRoot(config), HttpModule, OpenApiModule, ChainModule, StoreModule, McpModule],
    };
  }
}

export async function startMcpTestApp(env: Record<string, string> = {}): Promise<McpTestApp> {
  const dataDir = await mkdtemp(join(tmpdir(), 'passport-mcp-'));
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, STORE: 'memory', ...env });
  const app = await NestFactory.create<NestFastifyApplication>(
    McpTestRootModule.forRoot(config),
    new FastifyAdapter({ bodyLimit: 64 * 1024 }),
    { logger: false },
  );
  app.get(OpenApiDocumentService).attach(app);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    app,
    dataDir,
    close: async () => {
      await app.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
