/**
 * The operators' endpoints: the privileged session administration (`/api/sessions/*`) and metrics
 * (`GET /api/metrics`), and `GET /metrics` for a Prometheus scraper (static token; registered only when
 * METRICS_TOKEN is set).
 */
import { type DynamicModule, Module } from '@nestjs/common';
import { type AppConfig } from '../platform/config/app-config.js';
import { PlatformModule } from '../platform/platform.module.js';
import { SessionModule } from '../session/session.module.js';
import { WebhooksModule } from '../webhooks/webhooks.module.js';
import { MetricsSnapshotService } from './metrics-snapshot.service.js';
import { MetricsController } from './metrics.controller.js';
import { PrometheusScrapeController } from './prometheus-scrape.controller.js';
import { SessionsAdminController } from './sessions-admin.controller.js';

@Module({})
export class AdminModule {
  static forRoot(config: Pick<AppConfig, 'metricsToken'>): DynamicModule {
    return {
      module: AdminModule,
      imports: [PlatformModule, SessionModule, WebhooksModule],
      providers: [MetricsSnapshotService],
      controllers: [
        SessionsAdminController,
        MetricsController,
        ...(config.metricsToken === undefined ? [] : [PrometheusScrapeController]),
      ],
    };
  }
}
