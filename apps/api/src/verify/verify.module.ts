/**
 * The verification surface: `POST /api/identity/verify` (public, optional JWT), `POST /api/testhola`
 * (JWT, may send the test webhook) and `POST /api/isauthorizedsigner` (JWT), around one HOLA verifier.
 */
import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { WebhooksModule } from '../webhooks/webhooks.module.js';
import { holaVerifierProvider } from './hola-verifier.provider.js';
import { IsAuthorizedSignerController } from './isauthorizedsigner.controller.js';
import { TestHolaController } from './testhola.controller.js';
import { TestHolaService } from './testhola.service.js';
import { HOLA_VERIFIER } from './verify.di-tokens.js';
import { VerifyController } from './verify.controller.js';

@Module({
  imports: [AuthModule, WebhooksModule],
  controllers: [VerifyController, TestHolaController, IsAuthorizedSignerController],
  providers: [holaVerifierProvider, TestHolaService],
  exports: [HOLA_VERIFIER],
})
export class VerifyModule {}
