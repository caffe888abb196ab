/** JSON body of `GET /api/metrics` (docs/protocol.md §4), described once. */
import { z } from 'zod';
import { openApiComponent, type SameShape } from '../platform/openapi/zod-openapi.js';
import { type MetricsSnapshot } from './metrics.snapshot.js';

const counts = <K extends string>(...names: K[]) =>
  z.object(Object.fromEntries(names.map((name) => [name, z.int()])) as Record<K, z.ZodInt>);

export const metricsSchema = z.object({
  requests: counts('total', 'errors', 'perMinute').meta({
    description: 'errors: answers with a 5xx status (4xx refusals count in total alone).',
  }),
  sessions: counts('active', 'total'),
  chain: counts('reads', 'cacheHits'),
  verify: z.object({
    total: z.int(),
    verified: z.int(),
    rejected: z.int(),
    invalid: z.int(),
    failureReasons: z.record(z.string(), z.int()),
    refused: z.record(z.string(), z.int()).meta({
      description:
        'Lines that verified but were refused because the replay store could not record them, by error code.',
    }),
  }),
  routes: z
    .record(z.string(), z.object({ count: z.int(), p50Ms: z.number(), p95Ms: z.number(), p99Ms: z.number() }))
    .meta({ description: 'Per route pattern: request count and recent latency percentiles (ms).' }),
  requestId: z.string(),
  timestamp: z.string().meta({ format: 'date-time' }),
});
export type Metrics = z.infer<typeof metricsSchema>;

/** The schema describes exactly the snapshot the service gathers (plus requestId and timestamp). */
export const metricsMatchSnapshot: SameShape<
  Omit<Metrics, 'requestId' | 'timestamp'>,
  MetricsSnapshot
> = true;

export const metricsComponent = openApiComponent('MetricsDto', metricsSchema);
