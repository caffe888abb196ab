/**
 * `POST /api/identity/verify` (public, optional JWT): verifies a peer's HOLA line with the core's use
 * case (which reads the body too). Early validation and bad constraints are 400s; every other verdict is a 200 body to read
 * (`verified`, `failureReasons`). A bearer token, when sent, must be valid (401 otherwise); it enables the
 * RECIPIENT_MISMATCH warning and is renewed (`New-Token`) like any JWT route's.
 */
import { Body, Controller, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type HolaVerifier } from '@passport/core';
import { verifyRequestFromBody } from '@passport/core/hola';
import { type FastifyReply, type FastifyRequest } from 'fastify';
import { BearerAuthenticator } from '../session/bearer.authenticator.js';
import { TokenRenewer } from '../session/token-renewer.js';
import { RequestId } from '../platform/http/request-id.decorator.js';
import { VerifyMetrics } from '../platform/metrics/verify-metrics.js';
import { ApiErrors } from '../platform/openapi/api-errors.decorator.js';
import { HOLA_VERIFIER } from './hola.di-tokens.js';
import { verifyRequestComponent, verifyResponseComponent, type VerifyResponse } from './verify.schema.js';

@ApiTags('hola')
@Controller('api/identity')
export class VerifyController {
  constructor(
    @Inject(HOLA_VERIFIER) private readonly verifier: HolaVerifier,
    private readonly authenticator: BearerAuthenticator,
    private readonly renewer: TokenRenewer,
    private readonly metrics: VerifyMetrics,
  ) {}

  @Post('verify')
  @HttpCode(200)
  @ApiOperation({
    summary: "Verify a peer's HOLA line: format, checksum, freshness, token, signature, single use",
    description:
      'Public. 200 for any well-formed request: read `verified` and `failureReasons`. Early validation ' +
      '(format, lint, checksum) is 400 HOLA_VALIDATION_FAILED with `error.details.reasonCode` and `stage`. ' +
      'A line that verifies is recorded: verifying it again (here or on /api/testhola) reports `nonce_replay`. ' +
      'An optional bearer token must be valid (a bad, expired or closed one is 401 INVALIDATED_TOKEN). ' +
      'RECIPIENT_MISMATCH warns when `expectedRecipient` is given and differs from the recipient (a MUNDO ' +
      'line included), with or without a token; without `expectedRecipient`, when a bearer token is sent ' +
      'and the line is addressed neither to MUNDO nor to the caller. A subagent line warns ' +
      'DELEGATION_NOT_CHECKED: ask /api/isauthorizedsigner.',
    security: [{}, { bearer: [] }],
  })
  @ApiBody({ schema: verifyRequestComponent })
  @ApiOkResponse({ schema: verifyResponseComponent })
  @ApiErrors(
    'HOLA_VALIDATION_FAILED',
    'INVALID_CONSTRAINTS',
    'INVALID_VERIFY_OPTION',
    'MISSING_TOKEN',
    'INVALIDATED_TOKEN',
    'VERIFY_FAILED',
    'REPLAY_QUOTA_EXCEEDED',
    'REPLAY_STORE_FULL',
    'REPLAY_STORE_UNAVAILABLE',
    // An optional bearer token is checked like any other: its store or the chain may be unreachable.
    'SERVICE_UNAVAILABLE',
  )
  async verify(
    @Body() body: unknown,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @RequestId() requestId: string,
  ): Promise<VerifyResponse> {
    const header = request.headers.authorization;
    // Most verify requests carry no token: then there is no promise to wait for.
    const caller =
      header === undefined || header === '' ? null : await this.authenticator.authenticateOptional(header);
    if (caller !== null) await this.renewer.renewOnto(caller, reply);
    try {
      const { body: verdict } = await this.verifier.verify(
        verifyRequestFromBody(body, caller?.tokenId ?? null),
      );
      this.metrics.recordResult(verdict.verified, verdict.failureReasons);
      return { ...verdict, requestId };
    } catch (error) {
      this.metrics.recordError(error);
      throw error;
    }
  }
}
