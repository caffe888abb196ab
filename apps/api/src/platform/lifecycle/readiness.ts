/**
 * Whether this instance should receive new traffic: `starting` until the server listens, `ready`
 * then, `draining` from the shutdown signal on (it never becomes ready again). `GET /health/ready`
 * answers from it; `GET /health` (dependencies) is a separate question and stays as it is.
 */
import { Injectable } from '@nestjs/common';

export type ReadinessState = 'starting' | 'ready' | 'draining';

@Injectable()
export class Readiness {
  private current: ReadinessState = 'starting';
  private readonly fatalChecks: Array<() => string | undefined> = [];

  get state(): ReadinessState {
    return this.current;
  }

  /**
   * Registers a check for a problem no retry fixes (a Redis database index the server refuses): while
   * one reports a problem the instance is not ready, so an orchestrator takes it out of rotation
   * instead of sending it traffic it can only refuse. A slow or down dependency is not such a problem.
   */
  addFatalCheck(check: () => string | undefined): void {
    this.fatalChecks.push(check);
  }

  /** The first fatal problem reported now, or undefined. */
  get fatalProblem(): string | undefined {
    for (const check of this.fatalChecks) {
      const problem = check();
      if (problem !== undefined) return problem;
    }
    return undefined;
  }

  get draining(): boolean {
    return this.current === 'draining';
  }

  markReady(): void {
    if (this.current === 'starting') this.current = 'ready';
  }

  markDraining(): void {
    this.current = 'draining';
  }
}
