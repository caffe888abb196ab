/**
 * The JWT and privileged tiers (docs/protocol.md §3): the EdDSA JWT codec keyed by the server passport,
 * the bearer, logout and privileged guards, the per-passport rate limiter and the token renewer,
 * exported for the feature modules whose routes they guard.
 */
import { Module } from '@nestjs/common';
import { type Clock } from '@passport/core';
import { type AppConfig } from '../platform/config/app-config.js';
import { APP_CONFIG, CLOCK, SERVER_IDENTITY } from '../platform/infrastructure/di-tokens.js';
import { type ServerIdentity } from '../platform/infrastructure/server-identity.js';
import { PlatformModule } from '../platform/platform.module.js';
import { BearerAuthGuard } from './bearer-auth.guard.js';
import { BearerAuthenticator } from './bearer.authenticator.js';
import { PassportRateLimiter } from './passport-rate-limiter.js';
import { PrivilegedGuard } from './privileged.guard.js';
import { PrivilegeGrants } from './privilege-grant.js';
import { LogoutAuthGuard } from './logout-auth.guard.js';
import { TokenRenewer } from './token-renewer.js';
import { EddsaJwtCodec } from './eddsa-jwt.codec.js';

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

const guards = [
  BearerAuthenticator,
  PassportRateLimiter,
  TokenRenewer,
  BearerAuthGuard,
  PrivilegeGrants,
  PrivilegedGuard,
  LogoutAuthGuard,
];

@Module({
  imports: [PlatformModule],
  providers: [jwtCodec, ...guards],
  exports: [EddsaJwtCodec, ...guards],
})
export class SessionModule {}
