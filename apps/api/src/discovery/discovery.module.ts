/** Discovery: the service description and policy documents, the concierge trust anchor, and the Swagger UI. */
import { Module } from '@nestjs/common';
import { PlatformModule } from '../platform/platform.module.js';
import { ConciergeController } from './concierge.controller.js';
import { DiscoveryController } from './discovery.controller.js';
import { DocsController } from './docs.controller.js';

@Module({
  imports: [PlatformModule],
  controllers: [DiscoveryController, ConciergeController, DocsController],
})
export class DiscoveryModule {}
