/**
 * What the soak samples of the service every interval: the process's resident set from /proc (all
 * of it: the gateway thread, the shard and replay workers, native memory) and the gateway thread's
 * V8 heap, plus the service's own counts of the state that is allowed to grow (idempotency entries,
 * markets, commitments), so that growth can be set against accepted data.
 */
import { readFileSync } from "node:fs";

export interface MemorySample {
  /** Seconds since the load started. */
  atSeconds: number;
  rssBytes: number;
  /**
   * Median of the RSS read every second since the previous sample (RssWindow): what the checks
   * and the chart use. A single reading includes whatever large buffers happen to be in flight or
   * waiting for a collector (large records, replies of big subjects), which moves it a lot from one
   * second to the next.
   */
  rssMedianBytes: number;
  /** Anonymous part of the RSS (heap, malloc); the rest is mapped files and shared memory. */
  rssAnonBytes: number;
  /** Gateway thread's V8 heap (workers have their own heaps, counted only in the RSS). */
  heapUsedBytes: number;
  /** Heap used right after a full collection (inspector-gc.ts): what is live; null without one. */
  heapLiveBytes: number | null;
  heapTotalBytes: number;
  externalBytes: number;
  idempotencyEntries: number;
  markets: number;
  commitments: number;
  /** Lines of the metrics exposition: a label series that grows per request shows up here. */
  metricLines: number;
  /**
   * What the service keeps besides its state, where its build reports it (null otherwise): the
   * shards' kept replies (characters), kept records (bytes), outstanding challenges, tokens kept.
   */
  replyCacheChars: number | null;
  recordCacheBytes: number | null;
  challenges: number | null;
  tokensKept: number | null;
}

/** VmRSS and RssAnon of a process (Linux), in bytes. */
export function readProcessRss(pid: number): { rssBytes: number; rssAnonBytes: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (name: string): number => {
    const match = new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status);
    if (match === null) throw new Error(`/proc/${pid}/status has no ${name}`);
    return Number(match[1]) * 1024;
  };
  return { rssBytes: kib("VmRSS"), rssAnonBytes: kib("RssAnon") };
}

export type ServiceGauges = Omit<MemorySample, "atSeconds" | "rssBytes" | "rssMedianBytes" | "rssAnonBytes" | "heapLiveBytes">;

/** RSS readings between two samples (one a second), reduced to their median. */
export class RssWindow {
  private readings: number[] = [];

  constructor(private readonly pid: number) {}

  read(): void {
    this.readings.push(readProcessRss(this.pid).rssBytes);
  }

  /** The median of the readings so far (or `fallback` when there are none); starts a new window. */
  takeMedian(fallback: number): number {
    const sorted = this.readings.sort((a, b) => a - b);
    this.readings = [];
    if (sorted.length === 0) return fallback;
    const middle = Math.floor(sorted.length / 2);
    return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
  }
}

/** Where the service's metrics are read: its base URL and its METRICS_TOKEN (GET /metrics is not public, decisions.md T10). */
export interface MetricsAccess {
  baseUrl: string;
  token: string;
}

/**
 * The service's heap and state gauges, read from its Prometheus exposition. This is the one place
 * that knows where the metrics are: if they move to another listener, adapt the request here.
 */
export async function readServiceGauges(metrics: MetricsAccess): Promise<ServiceGauges> {
  const metricsUrl = `${metrics.baseUrl}/metrics`;
  const response = await fetch(metricsUrl, { headers: { authorization: `Bearer ${metrics.token}` } });
  if (response.status !== 200) throw new Error(`GET ${metricsUrl}: ${response.status}`);
  const text = await response.text();
  const lines = text.split("\n").filter((line) => line !== "" && !line.startsWith("#"));
  // Sum of every series of one metric name (shard gauges carry a shard label).
  const sum = (name: string, absentIsZero = false): number => {
    let total = 0;
    let found = false;
    for (const line of lines) {
      if (line.startsWith(`${name} `) || line.startsWith(`${name}{`)) {
        total += Number(line.slice(line.lastIndexOf(" ") + 1));
        found = true;
      }
    }
    if (!found && !absentIsZero) throw new Error(`${metricsUrl} has no ${name}`);
    return total;
  };
  const optional = (name: string): number | null => (lines.some((line) => line.startsWith(`${name} `) || line.startsWith(`${name}{`)) ? sum(name) : null);
  return {
    heapUsedBytes: sum("market_nodejs_heap_size_used_bytes"),
    heapTotalBytes: sum("market_nodejs_heap_size_total_bytes"),
    externalBytes: sum("market_nodejs_external_memory_bytes"),
    idempotencyEntries: sum("market_idempotency_entries"),
    // Set after a shard's first batch: absent before any command.
    markets: sum("market_shard_markets", true),
    commitments: sum("market_shard_commitments", true),
    metricLines: lines.length,
    replyCacheChars: optional("market_shard_reply_cache_chars"),
    recordCacheBytes: optional("market_record_cache_bytes"),
    challenges: optional("market_auth_challenges_outstanding"),
    tokensKept: optional("market_auth_tokens_kept"),
  };
}

/**
 * One sample: the RSS and the gauges as they are, then (with `collectGarbage`) a full collection of
 * the gateway's heap and the heap used after it. The RSS is read before the collection.
 */
export async function sampleMemory(pid: number, metrics: MetricsAccess, atSeconds: number, collectGarbage?: () => Promise<void>, window?: RssWindow): Promise<MemorySample> {
  const rss = readProcessRss(pid);
  const rssMedianBytes = window === undefined ? rss.rssBytes : window.takeMedian(rss.rssBytes);
  const gauges = await readServiceGauges(metrics);
  let heapLiveBytes: number | null = null;
  if (collectGarbage !== undefined) {
    await collectGarbage();
    heapLiveBytes = (await readServiceGauges(metrics)).heapUsedBytes;
  }
  return { atSeconds, ...rss, rssMedianBytes, ...gauges, heapLiveBytes };
}
