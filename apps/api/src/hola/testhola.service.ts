/**
 * `POST /api/testhola` (docs/protocol.md §4): the caller's self-test of an outbound HOLA line. It runs the
 * same verifier as `/api/identity/verify` (one replay record) with the default 300 s window; the core's
 * `testHolaGateError` turns a failed verdict into the error of the first gate it failed.
 * On success the server answers with its own signed line addressed to the caller (fresh nonce, server
 * key), and with WEBHOOK_TEST_ENABLED the `testhola_validation_success` webhook goes to the caller's
 * `webhook_url` in the background.
 *
 * Warnings: the line is meant for this server, so RECIPIENT_MISMATCH is reported when it is addressed
 * neither to MUNDO nor to the server passport, unless `expectedRecipient` says otherwise.
 */
import { Inject, Injectable } from '@nestjs/common';
import { buildHolaLine, type ChainReader, type Clock, type HolaVerifier } from '@passport/core';
import {
  testHolaGateError,
  testHolaRequestFromBody,
  type VerifyHolaBody,
  type VerifyHolaResult,
} from '@passport/core/hola';
import { type AuthContext } from '../session/auth-context.js';
import { type AppConfig } from '../platform/config/app-config.js';
import { APP_CONFIG, CHAIN_READER, CLOCK, SERVER_IDENTITY } from '../platform/infrastructure/di-tokens.js';
import { newNonceHex } from '../platform/infrastructure/pooled-random.js';
import { type ServerIdentity } from '../platform/infrastructure/server-identity.js';
import { VerifyMetrics } from '../platform/metrics/verify-metrics.js';
import { WebhookDispatcher } from '../webhooks/webhook-dispatcher.js';
import { type TestHolaResponse } from './testhola.schema.js';
import { HOLA_VERIFIER } from './hola.di-tokens.js';

export const TESTHOLA_WEBHOOK_EVENT = 'testhola_validation_success';
export const TESTHOLA_ENDPOINT = '/api/testhola';

/** The 200 body before the request id is added. */
export type TestHolaReply = Omit<TestHolaResponse, 'requestId'>;

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

  async test(body: unknown, caller: AuthContext, requestId: string): Promise<TestHolaReply> {
    let result: VerifyHolaResult;
    try {
      result = await this.verifier.verify(testHolaRequestFromBody(body, this.server.tokenId));
    } catch (error) {
      this.metrics.recordError(error);
      throw error;
    }
    const verdict = result.body;
    this.metrics.recordResult(verdict.verified, verdict.failureReasons);
    const failedGate = testHolaGateError(result);
    if (failedGate) throw failedGate;

    const serverTimestamp = new Date(this.clock.nowMs()).toISOString();
    const reply = buildHolaLine({
      recipient: caller.tokenId,
      senderTokenId: this.server.tokenId,
      timestamp: serverTimestamp,
      nonceHex: newNonceHex(),
      serviceHost: this.config.serviceHost,
      signer: this.server.signer,
    });
    if (this.config.webhookTestEnabled) this.sendWebhook(caller, verdict, requestId, serverTimestamp);

    return {
      valid: true,
      peerTokenId: verdict.peerTokenId,
      destinatary: verdict.destinatary,
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
      ...(verdict.warnings ? { warnings: verdict.warnings } : {}),
      // As verify marks them (else a self-signed subagent line naming any passport comes back as that
      // passport, verified, with nothing to tell it from the passport's own line).
      ...(verdict.isSubagentFormat && {
        isSubagentFormat: true as const,
        delegateId: verdict.delegateId,
        issuerTokenId: verdict.issuerTokenId,
      }),
    };
  }

  /**
   * The `testhola_validation_success` webhook to the caller's `webhook_url` and `webhook_cidr` as the chain
   * has them now (cached reads), not as the JWT's claims copied them at login: a holder who moves off a
   * lost endpoint or narrows the range is obeyed at once, not at the session's end.
   */
  private sendWebhook(
    caller: AuthContext,
    verdict: VerifyHolaBody,
    requestId: string,
    timestamp: string,
  ): void {
    this.webhooks.dispatch(async () => {
      const passport = await this.chain.getPassport(caller.tokenId);
      const webhookUrl = passport?.metadata.webhook_url ?? null;
      const webhookCidr = passport?.metadata.webhook_cidr ?? null;
      return {
        event: TESTHOLA_WEBHOOK_EVENT,
        requestId,
        // Receivers that require a session check the caller's: the session of the JWT that called.
        sessionId: caller.sessionId,
        webhookUrl,
        webhookCidr,
        data: {
          peerTokenId: verdict.peerTokenId,
          serverTokenId: this.server.tokenId,
          recipient: verdict.destinatary,
          timestamp,
          endpoint: TESTHOLA_ENDPOINT,
          ...(verdict.isSubagentFormat && {
            isSubagentFormat: true,
            delegateId: verdict.delegateId,
            issuerTokenId: verdict.issuerTokenId,
          }),
        },
      };
    }, caller.tokenId);
  }
}
