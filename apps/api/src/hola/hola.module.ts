/**
 * The verification surface: `POST /api/identity/verify` (public, optional JWT), `POST /api/testhola`
 * (JWT, may send the test webhook) and `POST /api/isauthorizedsigner` (JWT), around one HOLA verifier;
 * and `GET /api/holanonce16ts`, the nonce and timestamp for the caller's next HOLA line.
 */
import { Module } from '@nestjs/common';
import { PlatformModule } from '../platform/platform.module.js';
import { SessionModule } from '../session/session.module.js';
import { WebhooksModule } from '../webhooks/webhooks.module.js';
import { HolaNonceController } from './hola-nonce.controller.js';
import { holaVerifierProvider } from './hola-verifier.provider.js';
import { IsAuthorizedSignerController } from './isauthorizedsigner.controller.js';
import { TestHolaController } from './testhola.controller.js';
import { TestHolaService } from './testhola.service.js';
import { VerifyController } from './verify.controller.js';

@Module({
  imports: [PlatformModule, SessionModule, WebhooksModule],
  controllers: [VerifyController, TestHolaController, IsAuthorizedSignerController, HolaNonceController],
  providers: [holaVerifierProvider, TestHolaService],
})
export class HolaModule {}
