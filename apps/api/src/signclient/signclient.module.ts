/** `POST /api/signclient`: fee check and family signing of new passport metadata. */
import { Module } from '@nestjs/common';
import { PlatformModule } from '../platform/platform.module.js';
import { SessionModule } from '../session/session.module.js';
import { FamilySignerSource } from './family-signer.source.js';
import { SignClientController } from './signclient.controller.js';

@Module({
  imports: [PlatformModule, SessionModule],
  controllers: [SignClientController],
  providers: [FamilySignerSource],
})
export class SignClientModule {}
