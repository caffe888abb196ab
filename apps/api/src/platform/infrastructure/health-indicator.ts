/**
 * A dependency check for GET /health. Each adapter family (chain, store) provides one; a failing or
 * slow check marks the service `degraded` without failing the health endpoint itself.
 */
export interface HealthCheckResult {
  readonly ok: boolean;
  /** Client-safe detail (adapter kind, latency); never an upstream error text. */
  readonly detail?: Record<string, unknown>;
}

export interface HealthIndicator {
  /** Key under `checks` in the health body, e.g. `chain`, `store`. */
  readonly name: string;
  check(): Promise<HealthCheckResult>;
}
