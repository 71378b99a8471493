/**
 * The two per-request metrics, counted in plain numbers and handed to prom-client's registry only
 * when /metrics is scraped. prom-client hashes the label values on every `inc` and `observe`, bound
 * children included: 2–3.5 µs per response on the gateway thread (`.tmp/metrics-micro.ts`), about
 * a twentieth of a claim's cost there. Here a response costs one Map lookup per metric.
 *
 * The exposition is what prom-client's own Counter and Histogram print (same names, label order,
 * bucket bounds, `+Inf`, `_sum` and `_count`), so scrapers and dashboards see no difference. Both
 * objects implement the part of prom-client's metric contract its Registry uses: `name`, `help`,
 * `type`, `aggregator` and `get()`.
 */

/** What prom-client's Registry reads from a metric's `get()` to print it. */
interface ExposedValue {
  readonly metricName?: string;
  readonly labels: Readonly<Record<string, string | number>>;
  readonly value: number;
}

export interface ExposedMetric {
  readonly name: string;
  readonly help: string;
  readonly type: "counter" | "histogram";
  readonly aggregator: "sum";
  readonly values: readonly ExposedValue[];
}

interface CounterSeries {
  readonly labels: Record<string, string>;
  value: number;
}

/** A counter whose series are named by a caller-built key (the label values joined). */
export class RequestCounter {
  readonly type = "counter" as const;
  readonly aggregator = "sum" as const;
  private readonly series = new Map<string, CounterSeries>();

  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  /** Add one to the series `key`; `labels` is read only when the series is new. */
  inc(key: string, labels: () => Record<string, string>): void {
    const series = this.series.get(key);
    if (series !== undefined) series.value += 1;
    else this.series.set(key, { labels: labels(), value: 1 });
  }

  async get(): Promise<ExposedMetric> {
    return {
      name: this.name,
      help: this.help,
      type: this.type,
      aggregator: this.aggregator,
      values: [...this.series.values()].map((series) => ({ labels: series.labels, value: series.value })),
    };
  }
}

interface HistogramSeries {
  readonly labels: Record<string, string>;
  /** Observations per bucket (not cumulative); the last slot counts those above every bound. */
  readonly counts: Float64Array;
  sum: number;
}

export class RequestHistogram {
  readonly type = "histogram" as const;
  readonly aggregator = "sum" as const;
  private readonly series = new Map<string, HistogramSeries>();

  constructor(
    readonly name: string,
    readonly help: string,
    /** Upper bounds, ascending. */
    private readonly buckets: readonly number[],
  ) {
    for (let i = 1; i < buckets.length; i += 1) {
      if (!((buckets[i] as number) > (buckets[i - 1] as number))) throw new RangeError("histogram buckets must ascend");
    }
  }

  observe(key: string, labels: () => Record<string, string>, value: number): void {
    let series = this.series.get(key);
    if (series === undefined) {
      series = { labels: labels(), counts: new Float64Array(this.buckets.length + 1), sum: 0 };
      this.series.set(key, series);
    }
    let bucket = 0;
    while (bucket < this.buckets.length && value > (this.buckets[bucket] as number)) bucket += 1;
    (series.counts as Float64Array)[bucket] = (series.counts[bucket] as number) + 1;
    series.sum += value;
  }

  async get(): Promise<ExposedMetric> {
    const values: ExposedValue[] = [];
    for (const series of this.series.values()) {
      let cumulative = 0;
      this.buckets.forEach((bound, i) => {
        cumulative += series.counts[i] as number;
        values.push({ metricName: `${this.name}_bucket`, labels: { le: bound, ...series.labels }, value: cumulative });
      });
      cumulative += series.counts[this.buckets.length] as number;
      values.push({ metricName: `${this.name}_bucket`, labels: { le: "+Inf", ...series.labels }, value: cumulative });
      values.push({ metricName: `${this.name}_sum`, labels: { ...series.labels }, value: series.sum });
      values.push({ metricName: `${this.name}_count`, labels: { ...series.labels }, value: cumulative });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
}
