/** `POST /api/signclient`: fee check and family signing of new passport metadata. */
import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { FamilySignerSource } from './family-signer.source.js';
import { SignClientController } from './signclient.controller.js';

@Module({ imports: [AuthModule], controllers: [SignClientController], providers: [FamilySignerSource] })
export class SignClientModule {}
