/** `POST /api/testhola` (JWT): the self-test of an outbound HOLA line (see testhola.service.ts). */
import { Body, Controller, HttpCode, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Caller, type AuthContext } from '../session/auth-context.js';
import { BearerAuthGuard } from '../session/bearer-auth.guard.js';
import { BEARER_ERRORS } from '../login/login.controller.js';
import { RequestId } from '../platform/http/request-id.decorator.js';
import { ApiErrors } from '../platform/openapi/api-errors.decorator.js';
import {
  testHolaRequestComponent,
  testHolaResponseComponent,
  type TestHolaResponse,
} from './testhola.schema.js';
import { TestHolaService } from './testhola.service.js';

@ApiTags('hola')
@Controller('api')
export class TestHolaController {
  constructor(private readonly testHola: TestHolaService) {}

  @Post('testhola')
  @HttpCode(200)
  @UseGuards(BearerAuthGuard)
  @ApiBearerAuth()
  @ApiOperation({
    summary: 'Self-test an outbound HOLA line; on success the server replies with its own signed line',
    description:
      'Same checks and the same single-use record as POST /api/identity/verify (a line accepted here is a replay ' +
      'there), with the default 300 s window; `constraints` is ignored. Failures are 400s: ' +
      'HOLA_VALIDATION_FAILED (format, lint, checksum; replay with stage nonce_replay_validation), ' +
      'HOLA_TIMESTAMP_INVALID (ageSeconds, maxAgeSeconds), HOLA_SIGNATURE_INVALID (reasonCode token_missing, ' +
      'token_expired, signature_invalid, public_key_unavailable). With WEBHOOK_TEST_ENABLED=true (development ' +
      "only) a success also sends the signed testhola_validation_success webhook to the caller's webhook_url " +
      '(/hooks/agent and /hooks/wake), in the background.',
  })
  @ApiBody({ schema: testHolaRequestComponent })
  @ApiOkResponse({ schema: testHolaResponseComponent })
  @ApiErrors(
    ...BEARER_ERRORS,
    'HOLA_VALIDATION_FAILED',
    'INVALID_VERIFY_OPTION',
    'HOLA_TIMESTAMP_INVALID',
    'HOLA_SIGNATURE_INVALID',
    'VERIFY_FAILED',
    'REPLAY_QUOTA_EXCEEDED',
    'REPLAY_STORE_FULL',
    'REPLAY_STORE_UNAVAILABLE',
  )
  async test(
    @Body() body: unknown,
    @Caller() caller: AuthContext,
    @RequestId() requestId: string,
  ): Promise<TestHolaResponse> {
    return { ...(await this.testHola.test(body, caller, requestId)), requestId };
  }
}
