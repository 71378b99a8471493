/**
 * The two per-request metrics, counted in plain numbers and handed to prom-client's registry only
 * when /metrics is scraped. prom-client hashes the label values on every `inc` and `observe`, bound
 * children included, on the gateway thread's hot path. Here a response costs one Map lookup per
 * metric.
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

type Labels = Record<string, string>;

/**
 * Series named by a caller-built key (the label values joined). `labelsOf` runs only when a key is
 * new, so counting a response allocates nothing.
 */
abstract class SeriesMetric<Sample, Series> {
  readonly aggregator = "sum" as const;
  protected readonly series = new Map<string, Series>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelsOf: (sample: Sample) => Labels,
  ) {}

  protected seriesFor(key: string, sample: Sample): Series {
    const found = this.series.get(key);
    if (found !== undefined) return found;
    const created = this.create(this.labelsOf(sample));
    this.series.set(key, created);
    return created;
  }

  protected abstract create(labels: Labels): Series;
}

interface CounterSeries {
  readonly labels: Labels;
  value: number;
}

export class RequestCounter<Sample> extends SeriesMetric<Sample, CounterSeries> {
  readonly type = "counter" as const;

  /** Add one to the series `key`. */
  inc(key: string, sample: Sample): void {
    this.seriesFor(key, sample).value += 1;
  }

  protected create(labels: Labels): CounterSeries {
    return { labels, value: 0 };
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
  readonly labels: Labels;
  /** Observations per bucket (not cumulative); the last slot counts those above every bound. */
  readonly counts: Float64Array;
  sum: number;
}

export class RequestHistogram<Sample> extends SeriesMetric<Sample, HistogramSeries> {
  readonly type = "histogram" as const;

  constructor(
    name: string,
    help: string,
    labelsOf: (sample: Sample) => Labels,
    /** Upper bounds, ascending. */
    private readonly buckets: readonly number[],
  ) {
    super(name, help, labelsOf);
    for (let i = 1; i < buckets.length; i += 1) {
      if (!((buckets[i] as number) > (buckets[i - 1] as number))) throw new RangeError("histogram buckets must ascend");
    }
  }

  observe(key: string, sample: Sample, value: number): void {
    const series = this.seriesFor(key, sample);
    let bucket = 0;
    while (bucket < this.buckets.length && value > (this.buckets[bucket] as number)) bucket += 1;
    series.counts[bucket] = (series.counts[bucket] as number) + 1;
    series.sum += value;
  }

  protected create(labels: Labels): HistogramSeries {
    return { labels, counts: new Float64Array(this.buckets.length + 1), sum: 0 };
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
