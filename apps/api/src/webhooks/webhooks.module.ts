/** Outbound webhooks (spec "Events"; docs/protocol.md §10): the dispatcher, used by `/api/testhola`. */
import { Module } from '@nestjs/common';
import { PlatformModule } from '../platform/platform.module.js';
import { WebhookDispatcher } from './webhook-dispatcher.js';

@Module({ imports: [PlatformModule], providers: [WebhookDispatcher], exports: [WebhookDispatcher] })
export class WebhooksModule {}
