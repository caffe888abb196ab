/**
 * Identity: any passport by token id (`/api/identity/token/:tokenId/public|full`), the caller's own
 * (`/api/me/identity`), and the list of passport holders (`/api/agents`).
 */
import { Module } from '@nestjs/common';
import { PlatformModule } from '../platform/platform.module.js';
import { SessionModule } from '../session/session.module.js';
import { AgentsController } from './agents.controller.js';
import { MeIdentityController } from './me-identity.controller.js';
import { TokenIdentityController } from './token-identity.controller.js';

@Module({
  imports: [PlatformModule, SessionModule],
  controllers: [TokenIdentityController, MeIdentityController, AgentsController],
})
export class IdentityModule {}
