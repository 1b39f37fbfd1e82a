import type { Metric, Registry } from 'prom-client';

/*
 * Counters and histograms the core's events touch once per ticket, kept as plain numbers per
 * label value and handed to prom-client's registry in the shape its own metrics give it when
 * scraped (the same exposition text, test/metrics/tallies.test.ts). prom-client builds and hashes
 * a label string, validates the labels and allocates a few objects on every inc and observe:
 * ~4% of the coordinator's time and ~0.5 KB of garbage a ticket in the end-to-end bench. Here an
 * event is one or two Map look-ups and an add.
 */

interface CounterSeries {
  readonly labels: Record<string, string>;
  value: number;
}

/** A counter with one or two labels (gamefactory_find_game_total: factory and outcome). */
export class TalliedCounter<L extends string> {
  readonly type = 'counter';
  readonly aggregator = 'sum';
  /** First label's value -> second label's value ('' when there is one label) -> series. */
  private series = new Map<string, Map<string, CounterSeries>>();
  /** Every series in the order it began (the order prom-client exposes them in). */
  private ordered: CounterSeries[] = [];

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly [L] | readonly [L, L],
    registers: readonly Registry[],
  ) {
    for (const registry of registers) registry.registerMetric(this as unknown as Metric);
  }

  inc(first: string, second = '', by = 1): void {
    let inner = this.series.get(first);
    if (inner === undefined) this.series.set(first, (inner = new Map()));
    let series = inner.get(second);
    if (series === undefined) {
      const [a, b] = this.labelNames;
      inner.set(second, (series = { labels: b === undefined ? { [a]: first } : { [a]: first, [b]: second }, value: 0 }));
      this.ordered.push(series);
    }
    series.value += by;
  }

  async get(): Promise<{ name: string; help: string; type: 'counter'; values: { labels: Record<string, string>; value: number }[]; aggregator: 'sum' }> {
    const values = this.ordered.map((s) => ({ value: s.value, labels: s.labels }));
    return { help: this.help, name: this.name, type: this.type, values, aggregator: this.aggregator };
  }

  reset(): void {
    this.series = new Map();
    this.ordered = [];
  }
}

interface HistogramSeries {
  /** The series' label, one object for its life (prom-client caches its formatting by identity). */
  readonly labels: Record<string, string>;
  /** Observations per bucket (not cumulative), one per upper bound. */
  readonly counts: Float64Array;
  sum: number;
  count: number;
}

interface HistogramValue {
  labels: Record<string, string | number>;
  sharedLabels: Record<string, string>;
  value: number;
  metricName: string;
  /** null on buckets, absent on _sum and _count, as prom-client without exemplars. */
  exemplar: null | undefined;
}

/** A histogram with one label (gamefactory_time_to_assignment_seconds: factory). */
export class TalliedHistogram<L extends string> {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private series = new Map<string, HistogramSeries>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelName: L,
    /** Ascending, as prom-client keeps them. */
    private readonly upperBounds: readonly number[],
    registers: readonly Registry[],
  ) {
    for (const registry of registers) registry.registerMetric(this as unknown as Metric);
  }

  /** A non-finite value is dropped (prom-client refuses it with a TypeError). */
  observe(labelValue: string, value: number): void {
    if (!Number.isFinite(value)) return;
    let series = this.series.get(labelValue);
    if (series === undefined) {
      series = { labels: { [this.labelName]: labelValue }, counts: new Float64Array(this.upperBounds.length), sum: 0, count: 0 };
      this.series.set(labelValue, series);
    }
    const bounds = this.upperBounds;
    for (let i = 0; i < bounds.length; i++) {
      if (value <= bounds[i]!) {
        series.counts[i]!++;
        break;
      }
    }
    series.sum += value;
    series.count++;
  }

  /** What the registry formats: cumulative buckets, +Inf, _sum and _count per series, as prom-client's Histogram gives them. */
  async getForPromString(): Promise<{ name: string; help: string; type: 'histogram'; values: HistogramValue[]; aggregator: 'sum' }> {
    const values: HistogramValue[] = [];
    const bucket = `${this.name}_bucket`;
    for (const s of this.series.values()) {
      let cumulative = 0;
      for (let i = 0; i < this.upperBounds.length; i++) {
        cumulative += s.counts[i]!;
        values.push({ labels: { le: this.upperBounds[i]! }, sharedLabels: s.labels, value: cumulative, metricName: bucket, exemplar: null });
      }
      values.push(
        { labels: { le: '+Inf' }, sharedLabels: s.labels, value: s.count, metricName: bucket, exemplar: null },
        { labels: {}, sharedLabels: s.labels, value: s.sum, metricName: `${this.name}_sum`, exemplar: undefined },
        { labels: {}, sharedLabels: s.labels, value: s.count, metricName: `${this.name}_count`, exemplar: undefined },
      );
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  /** The same with each series' label merged into its values' labels (the registry's JSON). */
  async get(): Promise<{ name: string; help: string; type: 'histogram'; values: Omit<HistogramValue, 'sharedLabels'>[]; aggregator: 'sum' }> {
    const data = await this.getForPromString();
    return { ...data, values: data.values.map(({ sharedLabels, labels, ...rest }) => ({ ...rest, labels: { ...labels, ...sharedLabels } })) };
  }

  reset(): void {
    this.series = new Map();
  }
}
