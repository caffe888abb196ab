/**
 * `GET /health`: runs the chain and store checks (each bounded by a short timeout) and reports
 * `degraded` when one fails; the endpoint itself answers 200 either way so that a load balancer can
 * tell "slow dependency" from "dead instance". Check details are the indicators' client-safe fields.
 */
import { hostname } from 'node:os';
import { Controller, Get, Inject, Optional, Res } from '@nestjs/common';
import { type FastifyReply } from 'fastify';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CHAIN_HEALTH_INDICATOR, STORE_HEALTH_INDICATOR } from '../infrastructure/di-tokens.js';
import { type HealthIndicator } from '../infrastructure/health-indicator.js';
import { isoTimestamp } from '../http/iso-timestamp.js';
import { healthComponent, type Health } from './health.schema.js';
import { JSON_UTF8 } from '../http/json-content-type.js';

export const SERVICE_NAME = 'passport-identity-api';
/** A check slower than this counts as failed. */
export const HEALTH_CHECK_TIMEOUT_MS = 1500;
/**
 * A check (running or finished) is reused for this long: /health is public, and without this every
 * probe would reach the chain node and the database, so a flood of probes would become a flood upstream.
 */
export const HEALTH_RESULT_REUSE_MS = 1000;

async function runCheck(indicator: HealthIndicator, timeoutMs: number): Promise<Record<string, unknown>> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  try {
    const result = await Promise.race([indicator.check(), timeout]);
    const latencyMs = Math.round(performance.now() - started);
    if (result === 'timeout') return { status: 'fail', reason: 'timeout', latencyMs };
    return { ...(result.detail ?? {}), status: result.ok ? 'ok' : 'fail', latencyMs };
  } catch {
    // The indicator's error text may be an upstream message: report only that it failed.
    return { status: 'fail', reason: 'error', latencyMs: Math.round(performance.now() - started) };
  } finally {
    clearTimeout(timer);
  }
}

interface CheckRound {
  /**
   * The body's JSON up to the timestamp's value, and after it: serialised once per round (the round's
   * checks are reused for HEALTH_RESULT_REUSE_MS), since /health is a probe target and building and
   * stringifying the nested body on every request was most of the route's own cost.
   */
  readonly head: string;
  readonly tail: string;
}

@ApiTags('service')
@Controller()
export class HealthController {
  private readonly indicators: HealthIndicator[];
  /** Who answers: read once (os.hostname() is a system call, and /health is a probe target). */
  private readonly instance = Object.freeze({ hostname: hostname(), pid: process.pid });
  /**
   * The last round of checks (every indicator runs in each round), reused for HEALTH_RESULT_REUSE_MS;
   * `settled` once it has finished, so that the probes within the reuse time are answered without
   * waiting for a promise.
   */
  private recent:
    { readonly atMs: number; readonly result: Promise<CheckRound>; settled?: CheckRound } | undefined;

  constructor(
    @Optional() @Inject(CHAIN_HEALTH_INDICATOR) chain?: HealthIndicator,
    @Optional() @Inject(STORE_HEALTH_INDICATOR) store?: HealthIndicator,
  ) {
    this.indicators = [chain, store].filter((i): i is HealthIndicator => i !== undefined);
  }

  @Get('health')
  @ApiOperation({ summary: 'Health of this instance and its dependencies' })
  @ApiOkResponse({ schema: healthComponent })
  health(@Res({ passthrough: true }) reply: FastifyReply): string | Promise<string> {
    const round = this.checkRound();
    if (round instanceof Promise) return round.then((settled) => this.answer(reply, settled));
    return this.answer(reply, round);
  }

  private answer(reply: FastifyReply, { head, tail }: CheckRound): string {
    // The same bytes JSON.stringify gives for the Health object (members in this order).
    void reply.type(JSON_UTF8);
    return `${head}${JSON.stringify(isoTimestamp())}${tail}`;
  }

  /**
   * A round running or finished less than HEALTH_RESULT_REUSE_MS ago is reused whole (results and
   * verdict): the round itself once finished, else its promise.
   */
  private checkRound(): CheckRound | Promise<CheckRound> {
    // Monotonic: on the wall clock, a step back made the last round look younger, and it was served for
    // the length of the step (a probe: an hour of `healthy` over a broken ledger).
    const now = performance.now();
    const recent = this.recent;
    if (recent && now - recent.atMs < HEALTH_RESULT_REUSE_MS) return recent.settled ?? recent.result;
    const result = Promise.all(this.indicators.map((i) => runCheck(i, HEALTH_CHECK_TIMEOUT_MS))).then(
      (results) => {
        const checks: Record<string, unknown> = {};
        this.indicators.forEach((indicator, n) => (checks[indicator.name] = results[n]));
        const degraded = results.some((r) => r.status !== 'ok');
        const fixed: Omit<Health, 'timestamp' | 'instance'> = {
          status: degraded ? 'degraded' : 'healthy',
          degraded,
          checks,
          service: SERVICE_NAME,
        };
        const head = `${JSON.stringify(fixed).slice(0, -1)},"timestamp":`;
        return { head, tail: `,"instance":${JSON.stringify(this.instance)}}` };
      },
    );
    const round: NonNullable<HealthController['recent']> = { atMs: now, result };
    result.then(
      (settled) => (round.settled = settled),
      () => undefined,
    );
    this.recent = round;
    return result;
  }
}
