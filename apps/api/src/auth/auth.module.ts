/**
 * The JWT and privileged tiers (docs/protocol.md §3): login and logout, the EdDSA JWT codec keyed by the
 * server passport, the bearer and privileged guards (exported for other feature modules), the HOLA
 * nonce, the caller's identity, and the privileged session and metrics endpoints.
 */
import { Module } from '@nestjs/common';
import { type Clock } from '@passport/core';
import { type AppConfig } from '../config/app-config.js';
import { APP_CONFIG, CLOCK, SERVER_IDENTITY } from '../infrastructure/di-tokens.js';
import { type ServerIdentity } from '../infrastructure/server-identity.js';
import { MetricsController } from './admin/metrics.controller.js';
import { SessionsAdminController } from './admin/sessions-admin.controller.js';
import { BearerAuthGuard } from './bearer/bearer-auth.guard.js';
import { BearerAuthenticator } from './bearer/bearer.authenticator.js';
import { PassportRateLimiter } from './bearer/passport-rate-limiter.js';
import { PrivilegedGuard } from './bearer/privileged.guard.js';
import { LogoutAuthGuard } from './bearer/logout-auth.guard.js';
import { TokenRenewer } from './renewal/token-renewer.js';
import { MeIdentityController } from './identity/me-identity.controller.js';
import { EddsaJwtCodec } from './jwt/eddsa-jwt.codec.js';
import { LoginController } from './login/login.controller.js';
import { LoginService } from './login/login.service.js';
import { HolaNonceController } from './nonce/hola-nonce.controller.js';

const jwtCodec = {
  provide: EddsaJwtCodec,
  inject: [SERVER_IDENTITY, APP_CONFIG, CLOCK],
  useFactory: (server: ServerIdentity, config: AppConfig, clock: Clock) =>
    new EddsaJwtCodec({
      secretSeed: server.secretSeed,
      publicKey: server.signer.publicKey,
      issuer: config.publicBaseUrl,
      audience: server.ownerId,
      clock,
    }),
};

const httpControllers = [LoginController, HolaNonceController, MeIdentityController, SessionsAdminController, MetricsController];
const guards = [BearerAuthenticator, PassportRateLimiter, TokenRenewer, BearerAuthGuard, PrivilegedGuard, LogoutAuthGuard];

@Module({
  controllers: httpControllers,
  providers: [jwtCodec, LoginService, ...guards],
  exports: [EddsaJwtCodec, ...guards],
})
export class AuthModule {}
