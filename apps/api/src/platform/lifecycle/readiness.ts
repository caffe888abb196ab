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

  get state(): ReadinessState {
    return this.current;
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
