/** Identity of any passport by token id: the public profile and (JWT) the full identity. */
import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { TokenIdentityController } from './token-identity.controller.js';

@Module({ imports: [AuthModule], controllers: [TokenIdentityController] })
export class IdentityModule {}
