/** Login (docs/protocol.md §3): `GET /api/login/challenge`, `POST /api/login` and `POST /api/logout`. */
import { Module } from '@nestjs/common';
import { PlatformModule } from '../platform/platform.module.js';
import { SessionModule } from '../session/session.module.js';
import { LoginChallengeController } from './login-challenge.controller.js';
import { LoginController } from './login.controller.js';
import { LoginService } from './login.service.js';

@Module({
  imports: [PlatformModule, SessionModule],
  controllers: [LoginController, LoginChallengeController],
  providers: [LoginService],
})
export class LoginModule {}
