/** The did:passport method: description, resolution and the did:web copy of each document. */
import { Module } from '@nestjs/common';
import { PlatformModule } from '../platform/platform.module.js';
import { DidController } from './did.controller.js';

@Module({ imports: [PlatformModule], controllers: [DidController] })
export class DidModule {}
