/**
 * Privileged session administration (docs/protocol.md §4): list (paged like agents), clean up expired and
 * closed sessions, and revoke one. Access needs the route's exact path in the caller's
 * `permissioned_routes`. Answers are never stored by caches (they name every holder). The list takes
 * `limit` and `cursor` only: any other parameter is refused rather than ignored, since a script that
 * believes it filtered (`?tokenId=…`) and revokes what it got would end every holder's session.
 * Administrators' acts (revoke, cleanup) are logged with who did them.
 */
import {
  Body,
  Controller,
  Get,
  Header,
  HttpCode,
  Inject,
  Logger,
  Post,
  Query,
  UseGuards,
} from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { PassportError, type Clock } from '@passport/core';
import { hasUnprintable, printableText } from '@passport/core/codecs';
import { nextCursorAfter, parseOffsetPageQuery } from '@passport/core/profile';
import { type SessionRecord, type SessionStore } from '@passport/core/ports';
import { RequestId } from '../platform/http/request-id.decorator.js';
import { CLOCK, SESSION_STORE } from '../platform/infrastructure/di-tokens.js';
import { ApiErrors } from '../platform/openapi/api-errors.decorator.js';
import { ApiPageQuery } from '../platform/openapi/api-page-query.decorator.js';
import { BearerAuthGuard } from '../session/bearer-auth.guard.js';
import { PrivilegedGuard } from '../session/privileged.guard.js';
import { Caller, type AuthContext } from '../session/auth-context.js';
import { BEARER_ERRORS } from '../login/login.controller.js';
import {
  sessionCleanupComponent,
  sessionListComponent,
  sessionRevokeComponent,
  sessionRevokeRequestComponent,
  type SessionCleanup,
  type SessionList,
  type SessionRevoke,
  type SessionView,
} from './sessions-admin.schema.js';

export const PRIVILEGED_ERRORS = [...BEARER_ERRORS, 'PERMISSION_DENIED'] as const;
const MAX_REASON_LENGTH = 200;
const LIST_PARAMETERS = new Set(['limit', 'cursor']);

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export function viewSession(session: SessionRecord, nowMs: number): SessionView {
  const status = session.closedAtMs !== null ? 'closed' : session.expiresAtMs <= nowMs ? 'expired' : 'open';
  return {
    sessionId: session.sessionId,
    tokenId: session.tokenId,
    ownerId: session.ownerId,
    status,
    createdAt: iso(session.createdAtMs) as string,
    expiresAt: iso(session.expiresAtMs) as string,
    closedAt: iso(session.closedAtMs),
    closeReason: session.closeReason,
    federatedFrom: session.federatedFrom,
    renewalCount: session.renewalCount ?? 0,
    lastRenewedAt: iso(session.lastRenewedAtMs ?? null),
  };
}

@ApiTags('admin')
@ApiBearerAuth()
@UseGuards(BearerAuthGuard, PrivilegedGuard)
@Controller('api/sessions')
export class SessionsAdminController {
  private readonly logger = new Logger('Sessions');

  constructor(
    @Inject(SESSION_STORE) private readonly sessions: SessionStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Get()
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ summary: 'List login sessions, newest first (privileged)' })
  @ApiPageQuery()
  @ApiOkResponse({ schema: sessionListComponent })
  @ApiErrors(...PRIVILEGED_ERRORS, 'INVALID_QUERY_PARAMETER', 'SESSIONS_RETRIEVE_FAILED')
  list(@Query() query: Record<string, unknown>, @RequestId() requestId: string): Promise<SessionList> {
    return this.page(query, requestId);
  }

  @Get('list_all')
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ summary: 'Alias of GET /api/sessions (privileged)' })
  @ApiPageQuery()
  @ApiOkResponse({ schema: sessionListComponent })
  @ApiErrors(...PRIVILEGED_ERRORS, 'INVALID_QUERY_PARAMETER', 'SESSIONS_RETRIEVE_FAILED')
  listAll(@Query() query: Record<string, unknown>, @RequestId() requestId: string): Promise<SessionList> {
    return this.page(query, requestId);
  }

  @Post('cleanup')
  @HttpCode(200)
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ summary: 'Delete expired and closed sessions now (privileged)' })
  @ApiOkResponse({ schema: sessionCleanupComponent })
  @ApiErrors(...PRIVILEGED_ERRORS, 'SESSION_CLEANUP_FAILED')
  async cleanup(@Caller() caller: AuthContext, @RequestId() requestId: string): Promise<SessionCleanup> {
    let removed: number;
    try {
      removed = await this.sessions.sweep(this.clock.nowMs());
    } catch (error) {
      throw new PassportError('SESSION_CLEANUP_FAILED', null, undefined, { cause: error });
    }
    this.logger.log({
      msg: `sessions cleaned up by ${caller.tokenId}: ${removed} removed`,
      audit: 'sessions_cleaned_up',
      removed,
      adminTokenId: caller.tokenId,
      adminSessionId: caller.sessionId,
      requestId,
    });
    return { removed, requestId };
  }

  @Post('revoke')
  @HttpCode(200)
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ summary: 'Close a session; its token is refused from then on (privileged)' })
  @ApiBody({ schema: sessionRevokeRequestComponent })
  @ApiOkResponse({ schema: sessionRevokeComponent })
  @ApiErrors(...PRIVILEGED_ERRORS, 'VALIDATION_FAILED', 'SESSION_NOT_FOUND', 'SESSION_TERMINATION_FAILED')
  async revoke(
    @Body() body: unknown,
    @Caller() caller: AuthContext,
    @RequestId() requestId: string,
  ): Promise<SessionRevoke> {
    const fields =
      body !== null && typeof body === 'object' && !Array.isArray(body)
        ? (body as Record<string, unknown>)
        : {};
    const { sessionId, reason } = fields;
    // Printable, as the reason: an unknown id is named in the 404's details (an admin tool prints them).
    if (
      typeof sessionId !== 'string' ||
      sessionId === '' ||
      sessionId.length > 200 ||
      hasUnprintable(sessionId)
    ) {
      throw new PassportError('VALIDATION_FAILED', {
        field: 'sessionId',
        problem: 'non-empty printable text of at most 200 characters is required',
      });
    }
    if (
      reason !== undefined &&
      (typeof reason !== 'string' || reason.length > MAX_REASON_LENGTH || hasUnprintable(reason))
    ) {
      throw new PassportError('VALIDATION_FAILED', {
        field: 'reason',
        problem: `printable text of at most ${MAX_REASON_LENGTH} characters`,
      });
    }
    const closeReason = typeof reason === 'string' && reason !== '' ? reason : 'revoked_by_admin';
    let existing: SessionRecord | null;
    let revoked: boolean;
    let recordedReason = closeReason;
    const nowMs = this.clock.nowMs();
    try {
      existing = await this.sessions.get(sessionId);
      // An expired session is over already: closing it would rewrite its end as a revocation.
      if (existing && existing.closedAtMs === null && existing.expiresAtMs <= nowMs)
        return { sessionId, revoked: false, reason: 'expired', requestId };
      revoked = existing !== null && (await this.sessions.close(sessionId, closeReason, nowMs));
      // Already closed (before, or by a close that won the race): answer the reason that was recorded.
      if (existing && !revoked)
        recordedReason = (await this.sessions.get(sessionId))?.closeReason ?? closeReason;
    } catch (error) {
      throw new PassportError('SESSION_TERMINATION_FAILED', null, undefined, { cause: error });
    }
    if (!existing) throw new PassportError('SESSION_NOT_FOUND', { sessionId });
    // The audit trail of an administrator's act: who closed whose session, and why.
    if (revoked)
      this.logger.log({
        msg: `session ${sessionId} of ${existing.tokenId} revoked by ${caller.tokenId}`,
        audit: 'session_revoked',
        sessionId,
        holderTokenId: existing.tokenId,
        reason: closeReason,
        adminTokenId: caller.tokenId,
        adminSessionId: caller.sessionId,
        requestId,
      });
    return { sessionId, revoked, reason: recordedReason, requestId };
  }

  private async page(query: Record<string, unknown>, requestId: string): Promise<SessionList> {
    for (const name of Object.keys(query)) {
      if (!LIST_PARAMETERS.has(name))
        throw new PassportError('INVALID_QUERY_PARAMETER', {
          parameter: printableText(name, 64),
          reason: 'not a parameter of this list (it takes limit and cursor only; nothing is filtered)',
        });
    }
    const { offset, limit } = parseOffsetPageQuery({ limit: query.limit, cursor: query.cursor });
    try {
      const page = await this.sessions.list({ offset, limit });
      const now = this.clock.nowMs();
      return {
        sessions: page.items.map((s) => viewSession(s, now)),
        total: page.total,
        nextCursor: nextCursorAfter(offset, page.items.length, page.total),
        requestId,
      };
    } catch (error) {
      throw new PassportError('SESSIONS_RETRIEVE_FAILED', null, undefined, { cause: error });
    }
  }
}
