/**
 * The family root's signer for `/api/signclient`, from FAMILY_CREDENTIALS_FILE (NEAR credential JSON,
 * optional: only minting needs it). Read on first use and kept once it loaded; while it is missing or
 * unreadable every request is 500 SIGNCLIENT_FAILED (retried on the next request, so a key file put in
 * place later is picked up). The reason is logged, never sent.
 */
import { readFile } from 'node:fs/promises';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { PassportError, parseNearCredentials, type Signer } from '@passport/core';
import { createNodeSigner } from '@passport/core/node';
import { type AppConfig } from '../platform/config/app-config.js';
import { APP_CONFIG } from '../platform/infrastructure/di-tokens.js';

@Injectable()
export class FamilySignerSource {
  private readonly logger = new Logger('SignClient');
  private signer: Signer | undefined;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  async get(): Promise<Signer> {
    if (this.signer) return this.signer;
    let text: string;
    try {
      text = await readFile(this.config.familyCredentialsFile, 'utf8');
    } catch (error) {
      this.logger.warn(
        `FAMILY_CREDENTIALS_FILE cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}); signclient is unavailable`,
      );
      throw new PassportError('SIGNCLIENT_FAILED', { reason: 'family_key_not_configured' });
    }
    try {
      this.signer = createNodeSigner(parseNearCredentials(text).secretSeed);
    } catch {
      this.logger.warn('FAMILY_CREDENTIALS_FILE is not a valid key file; signclient is unavailable');
      throw new PassportError('SIGNCLIENT_FAILED', { reason: 'family_key_not_configured' });
    }
    return this.signer;
  }
}
