/**
 * `GET /health`: runs the chain and store checks (each bounded by a short timeout) and reports
 * `degraded` when one fails; the endpoint itself answers 200 either way so that a load balancer can
 * tell "slow dependency" from "dead instance". Check details are the indicators' client-safe fields.
 */
import { hostname } from 'node:os';
import { Controller, Get, Inject, Optional } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CHAIN_HEALTH_INDICATOR, STORE_HEALTH_INDICATOR } from '../infrastructure/di-tokens.js';
import { type HealthIndicator } from '../infrastructure/health-indicator.js';
import { HealthDto } from './health.dto.js';

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

@ApiTags('service')
@Controller()
export class HealthController {
  private readonly indicators: HealthIndicator[];
  /** Who answers: read once (os.hostname() is a system call, and /health is a probe target). */
  private readonly instance = Object.freeze({ hostname: hostname(), pid: process.pid });
  private readonly recent = new Map<HealthIndicator, { readonly atMs: number; readonly result: Promise<Record<string, unknown>> }>();

  constructor(
    @Optional() @Inject(CHAIN_HEALTH_INDICATOR) chain?: HealthIndicator,
    @Optional() @Inject(STORE_HEALTH_INDICATOR) store?: HealthIndicator,
  ) {
    this.indicators = [chain, store].filter((i): i is HealthIndicator => i !== undefined);
  }

  @Get('health')
  @ApiOperation({ summary: 'Health of this instance and its dependencies' })
  @ApiOkResponse({ type: HealthDto })
  async health(): Promise<HealthDto> {
    const results = await Promise.all(this.indicators.map((i) => this.checkOf(i)));
    const checks: Record<string, unknown> = {};
    this.indicators.forEach((indicator, n) => (checks[indicator.name] = results[n]));
    const degraded = results.some((r) => r.status !== 'ok');
    return {
      status: degraded ? 'degraded' : 'healthy',
      degraded,
      checks,
      service: SERVICE_NAME,
      timestamp: new Date().toISOString(),
      instance: this.instance,
    };
  }

  private checkOf(indicator: HealthIndicator): Promise<Record<string, unknown>> {
    const now = Date.now();
    const recent = this.recent.get(indicator);
    if (recent && now - recent.atMs < HEALTH_RESULT_REUSE_MS) return recent.result;
    const result = runCheck(indicator, HEALTH_CHECK_TIMEOUT_MS);
    this.recent.set(indicator, { atMs: now, result });
    return result;
  }
}
