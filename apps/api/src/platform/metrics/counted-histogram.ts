/**
 * A Prometheus histogram whose observations are counted by the app in plain arrays, one cell per label
 * set, and handed to prom-client's registry only when the text is rendered. prom-client's own
 * `observe` validates and hashes the labels on every call (~0.7 µs, the largest part of the metrics
 * hook, which runs on every request); here a cell is found once per label set and an observation is a
 * bucket search and three additions.
 *
 * The registry renders (and aggregates) it exactly as a prom-client `Histogram` with the same name,
 * help, label names and buckets: the same value pairs in the same order (series in the order their
 * label set was first observed; per series the cumulative buckets, `+Inf`, `_sum`, `_count`).
 */
import { type Metric, type Registry } from 'prom-client';

/** The value pair prom-client's registry renders: one line of the text exposition. */
interface ValuePair {
  labels: Record<string, string | number>;
  sharedLabels?: Record<string, string>;
  value: number;
  metricName: string;
  exemplar?: null;
}

export class HistogramCell {
  /** Observations per bucket (not cumulative); the last slot counts those above every bound. */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(
    readonly labels: Readonly<Record<string, string>>,
    private readonly upperBounds: readonly number[],
  ) {
    this.counts = new Float64Array(upperBounds.length + 1);
  }

  observe(value: number): void {
    // Like prom-client, which refuses a non-finite value (it would poison `_sum` for good).
    if (!Number.isFinite(value)) return;
    const bounds = this.upperBounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]) i++;
    this.counts[i]++;
    this.sum += value;
    this.count++;
  }
}

export class CountedHistogram<L extends string> {
  readonly type = 'histogram';
  /** How prom-client's AggregatorRegistry merges the figures of several instances. */
  readonly aggregator = 'sum';
  private readonly cells = new Map<string, HistogramCell>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly L[],
    private readonly upperBounds: readonly number[],
    registry: Registry,
  ) {
    registry.registerMetric(this as unknown as Metric);
  }

  /** The cell of one label set (created on first use; callers keep it to observe without a lookup). */
  cell(labels: Readonly<Record<L, string>>): HistogramCell {
    const key = this.labelNames.map((n) => `${n}:${labels[n]}`).join(',');
    let cell = this.cells.get(key);
    if (cell === undefined) {
      const ordered: Record<string, string> = {};
      for (const n of this.labelNames) ordered[n] = labels[n];
      cell = new HistogramCell(ordered, this.upperBounds);
      this.cells.set(key, cell);
    }
    return cell;
  }

  /**
   * Forgets every series (prom-client's `reset`, which `Registry.resetMetrics` calls). The cells are
   * zeroed in place, not dropped: callers keep cells to observe without a lookup, and a dropped cell
   * would go on counting where nothing renders it. A cell with no observation is not rendered, so a
   * series appears again with its next observation, as in prom-client.
   */
  reset(): void {
    for (const cell of this.cells.values()) {
      cell.counts.fill(0);
      cell.sum = 0;
      cell.count = 0;
    }
  }

  /** The form the registry renders as text. */
  getForPromString(): Promise<{
    name: string;
    help: string;
    type: string;
    values: ValuePair[];
    aggregator: string;
  }> {
    const bucketName = `${this.name}_bucket`;
    const values: ValuePair[] = [];
    for (const cell of this.cells.values()) {
      if (cell.count === 0) continue;
      let cumulative = 0;
      this.upperBounds.forEach((le, i) => {
        cumulative += cell.counts[i];
        values.push({
          labels: { le },
          sharedLabels: cell.labels,
          value: cumulative,
          metricName: bucketName,
          exemplar: null,
        });
      });
      values.push(
        {
          labels: { le: '+Inf' },
          sharedLabels: cell.labels,
          value: cell.count,
          metricName: bucketName,
          exemplar: null,
        },
        { labels: {}, sharedLabels: cell.labels, value: cell.sum, metricName: `${this.name}_sum` },
        { labels: {}, sharedLabels: cell.labels, value: cell.count, metricName: `${this.name}_count` },
      );
    }
    return Promise.resolve({
      name: this.name,
      help: this.help,
      type: this.type,
      values,
      aggregator: this.aggregator,
    });
  }

  /** The JSON form (`Registry.getMetricsAsJSON`, which the aggregator of several instances reads). */
  async get(): Promise<{
    name: string;
    help: string;
    type: string;
    values: ValuePair[];
    aggregator: string;
  }> {
    const data = await this.getForPromString();
    data.values = data.values.map(({ sharedLabels, labels, ...rest }) => ({
      ...rest,
      labels: { ...labels, ...sharedLabels },
    }));
    return data;
  }
}
