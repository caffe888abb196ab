/** The did:passport method: description, resolution and the did:web copy of each document. */
import { Module } from '@nestjs/common';
import { DidController } from './did.controller.js';

@Module({ controllers: [DidController] })
export class DidModule {}
