/**
 * `POST /api/testhola` (resolutions §4): the caller's self-test of an outbound HOLA line. It runs the
 * same verifier as `/api/identity/verify` (one replay record) with the default 300 s window, then
 * turns the verdict into gates, checked in pipeline order:
 *
 *   1. format, lint, checksum   → 400 HOLA_VALIDATION_FAILED (stage format_checksum_and_payload_validation)
 *   2. freshness                → 400 HOLA_TIMESTAMP_INVALID (stage timestamp_freshness_validation,
 *                                 ageSeconds, maxAgeSeconds)
 *   3. token and signature      → 400 HOLA_SIGNATURE_INVALID (stage signature_verification; reasonCode
 *                                 token_missing | token_expired | signature_invalid | public_key_unavailable,
 *                                 the first in the spec's order)
 *   4. single use               → 400 HOLA_VALIDATION_FAILED (reasonCode nonce_replay, stage nonce_replay_validation)
 *
 * A chain failure is not the sender's fault: 500 VERIFY_FAILED, never a 400 verdict.
 * On success the server answers with its own signed line addressed to the caller (fresh nonce, server
 * key), and with WEBHOOK_TEST_ENABLED the `testhola_validation_success` webhook goes to the caller's
 * `webhook_url` in the background.
 *
 * Warnings: the line is meant for this server, so RECIPIENT_MISMATCH is reported when it is addressed
 * neither to MUNDO nor to the server passport, unless `expectedRecipient` says otherwise.
 */
import { Inject, Injectable } from '@nestjs/common';
import {
  buildHolaLine,
  PassportError,
  type ChainReader,
  type Clock,
  type HolaVerifier,
  type VerifyFailureReason,
  type VerifyHolaResult,
} from '@passport/core';
import { type AuthContext } from '../auth/bearer/auth-context.js';
import { type AppConfig } from '../config/app-config.js';
import { APP_CONFIG, CHAIN_READER, CLOCK, SERVER_IDENTITY } from '../infrastructure/di-tokens.js';
import { newNonceHex } from '../infrastructure/pooled-random.js';
import { type ServerIdentity } from '../infrastructure/server-identity.js';
import { VerifyMetrics } from '../metrics/verify-metrics.js';
import { WebhookDispatcher } from '../webhooks/webhook-dispatcher.js';
import { HOLA_VERIFIER } from './verify.di-tokens.js';

export const TESTHOLA_WEBHOOK_EVENT = 'testhola_validation_success';
export const TESTHOLA_ENDPOINT = '/api/testhola';

/** Signature-stage reason codes, in the order they are reported. */
const SIGNATURE_GATE: readonly VerifyFailureReason[] = [
  'token_missing',
  'token_expired',
  'signature_invalid',
  'public_key_unavailable',
];

const SIGNATURE_HINTS: Record<string, string> = {
  token_missing: 'No passport has the sender token id of this line.',
  token_expired: 'The sender passport is outside its not_before / not_after window or revoked.',
  signature_invalid:
    'Sign the UTF-8 of the uppercased line up to and including /<HOST>/ with the key of the passport owner.',
  public_key_unavailable: 'The passport owner has no Ed25519 key on chain to check the signature with.',
};

export interface TestHolaBody {
  valid: true;
  peerTokenId: string;
  destinatary: string;
  peerVerified: true;
  hola: string;
  serverTokenId: string;
  serverDestinatary: string;
  serverTimestamp: string;
  checks: Record<
    | 'formatValid'
    | 'checksumValid'
    | 'timestampValid'
    | 'timestampFresh'
    | 'noncetsValid'
    | 'nonceReplaySafe'
    | 'tokenExists'
    | 'tokenActive'
    | 'signatureValid'
    | 'publicKeyAvailable',
    true
  >;
  warnings?: { code: string; message: string }[];
}

@Injectable()
export class TestHolaService {
  constructor(
    @Inject(HOLA_VERIFIER) private readonly verifier: HolaVerifier,
    @Inject(SERVER_IDENTITY) private readonly server: ServerIdentity,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(CHAIN_READER) private readonly chain: ChainReader,
    private readonly webhooks: WebhookDispatcher,
    private readonly metrics: VerifyMetrics,
  ) {}

  async test(body: unknown, caller: AuthContext, requestId: string): Promise<TestHolaBody> {
    const fields =
      typeof body === 'object' && body !== null && !Array.isArray(body)
        ? (body as Record<string, unknown>)
        : {};
    let result: VerifyHolaResult;
    try {
      result = await this.verifier.verify({
        hola: fields.hola,
        callerTokenId: this.server.tokenId,
        ...(typeof fields.expectedRecipient === 'string'
          ? { expectedRecipient: fields.expectedRecipient }
          : {}),
      });
    } catch (error) {
      this.metrics.recordError(error);
      throw error;
    }
    this.metrics.recordResult(result.verified, result.failureReasons);
    this.throwFirstFailedGate(result);

    const serverTimestamp = new Date(this.clock.nowMs()).toISOString();
    const reply = buildHolaLine({
      recipient: caller.tokenId,
      senderTokenId: this.server.tokenId,
      timestamp: serverTimestamp,
      nonceHex: newNonceHex(),
      serviceHost: this.config.serviceHost,
      signer: this.server.signer,
    });
    if (this.config.webhookTestEnabled) this.sendWebhook(caller, result, requestId, serverTimestamp);

    return {
      valid: true,
      peerTokenId: result.peerTokenId,
      destinatary: result.destinatary,
      peerVerified: true,
      hola: reply,
      serverTokenId: this.server.tokenId,
      serverDestinatary: caller.tokenId,
      serverTimestamp,
      checks: {
        formatValid: true,
        checksumValid: true,
        timestampValid: true,
        timestampFresh: true,
        noncetsValid: true,
        nonceReplaySafe: true,
        tokenExists: true,
        tokenActive: true,
        signatureValid: true,
        publicKeyAvailable: true,
      },
      ...(result.warnings ? { warnings: result.warnings } : {}),
    };
  }

  private throwFirstFailedGate(result: VerifyHolaResult): void {
    if (result.verified) return;
    const { facts } = result;
    const reasons = new Set(result.failureReasons);
    if (reasons.has('timestamp_stale_or_future')) {
      throw new PassportError(
        'HOLA_TIMESTAMP_INVALID',
        {
          reasonCode: 'timestamp_stale_or_future',
          stage: 'timestamp_freshness_validation',
          hint: 'Build a new line from a fresh GET /api/holanonce16ts; check the sender clock if it keeps failing.',
          ageSeconds: facts.ageSeconds,
          maxAgeSeconds: Math.floor(facts.maxAgeMs / 1000),
          holaTimestamp: facts.parsed.timestamp,
        },
        facts.ageSeconds < 0
          ? `The HOLA timestamp is ${-facts.ageSeconds} s in the future.`
          : `The HOLA timestamp is ${facts.ageSeconds} s old; at most ${Math.floor(facts.maxAgeMs / 1000)} s are accepted.`,
      );
    }
    if (reasons.has('public_key_error') || facts.chainError) {
      throw new PassportError('VERIFY_FAILED', { reason: 'chain_unavailable' });
    }
    const signatureReason = SIGNATURE_GATE.find((r) => reasons.has(r));
    if (signatureReason) {
      throw new PassportError('HOLA_SIGNATURE_INVALID', {
        reasonCode: signatureReason,
        stage: 'signature_verification',
        hint: SIGNATURE_HINTS[signatureReason],
        peerTokenId: result.peerTokenId,
      });
    }
    if (reasons.has('nonce_replay')) {
      throw new PassportError(
        'HOLA_VALIDATION_FAILED',
        {
          reasonCode: 'nonce_replay',
          stage: 'nonce_replay_validation',
          hint: 'This line was already accepted once; build a new line with a new nonce.',
          ...result.nonceReplayDetails,
        },
        'The nonce of this HOLA line was already used.',
      );
    }
    throw new PassportError('VERIFY_FAILED'); // unreachable while the reason list is complete
  }

  /** The `testhola_validation_success` webhook to the caller's `webhook_url` (JWT claim, else the chain). */
  private sendWebhook(
    caller: AuthContext,
    result: VerifyHolaResult,
    requestId: string,
    timestamp: string,
  ): void {
    const claimUrl = caller.claims.passport_webhookurl;
    const claimCidr = caller.claims.passport_webhookcidr;
    this.webhooks.dispatch(async () => {
      let webhookUrl = typeof claimUrl === 'string' && claimUrl !== '' ? claimUrl : null;
      let webhookCidr = typeof claimCidr === 'string' && claimCidr !== '' ? claimCidr : null;
      if (webhookUrl === null) {
        const passport = await this.chain.getPassport(caller.tokenId);
        webhookUrl = passport?.metadata.webhook_url ?? null;
        webhookCidr = passport?.metadata.webhook_cidr ?? null;
      }
      return {
        event: TESTHOLA_WEBHOOK_EVENT,
        requestId,
        // Receivers that require a session check the caller's: the session of the JWT that called.
        sessionId: caller.sessionId,
        webhookUrl,
        webhookCidr,
        data: {
          peerTokenId: result.peerTokenId,
          serverTokenId: this.server.tokenId,
          recipient: result.destinatary,
          timestamp,
          endpoint: TESTHOLA_ENDPOINT,
        },
      };
    });
  }
}
