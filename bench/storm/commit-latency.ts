/**
 * The service's own group commits (write + fdatasync of a shard batch) during one run, from the
 * `market_shard_commit_seconds` histogram on /metrics, read before and after the run. A claim's
 * reply waits for its batch's commit, and a claim that arrives during a commit waits for that one
 * too, so the commits' tail is a floor under the claims' tail: the storm report prints them side by
 * side for the half-rate run, where the target is a p99.
 */
const METRIC = "market_shard_commit_seconds_bucket";

/** Cumulative counts by bucket upper bound (seconds; Infinity for +Inf), summed over shards. */
export type CommitBuckets = Map<number, number>;

export interface CommitLatency {
  commits: number;
  /** The smallest bucket bound (ms) at or below which 99% of the run's commits finished. */
  p99AtMostMs: number;
  /** Commits slower than 1, 2 and 5 ms. */
  over1Ms: number;
  over2Ms: number;
  over5Ms: number;
}

export function parseCommitBuckets(metricsText: string): CommitBuckets {
  const buckets: CommitBuckets = new Map();
  for (const line of metricsText.split("\n")) {
    if (!line.startsWith(METRIC)) continue;
    const le = /le="([^"]+)"/.exec(line)?.[1];
    const count = Number(line.slice(line.lastIndexOf(" ") + 1));
    if (le === undefined || !Number.isFinite(count)) continue;
    const bound = le === "+Inf" ? Number.POSITIVE_INFINITY : Number(le);
    buckets.set(bound, (buckets.get(bound) ?? 0) + count);
  }
  return buckets;
}

/** The service's /metrics text; `metricsToken`: its METRICS_TOKEN (GET /metrics is not public). */
export async function readMetricsText(serviceUrl: string, metricsToken: string): Promise<string> {
  const response = await fetch(`${serviceUrl}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } });
  if (!response.ok) throw new Error(`GET /metrics answered ${response.status}`);
  return response.text();
}

export async function readCommitBuckets(serviceUrl: string, metricsToken: string): Promise<CommitBuckets> {
  return parseCommitBuckets(await readMetricsText(serviceUrl, metricsToken));
}

/** The commits between two readings. */
export function commitLatencyBetween(before: CommitBuckets, after: CommitBuckets): CommitLatency {
  const bounds = [...after.keys()].sort((a, b) => a - b);
  const countAt = (bound: number) => (after.get(bound) ?? 0) - (before.get(bound) ?? 0);
  const commits = countAt(Number.POSITIVE_INFINITY);
  const atMost = (seconds: number) => {
    // Cumulative count at the largest bound ≤ `seconds` (the histogram's bounds include 1, 2, 5 ms).
    const bound = bounds.filter((b) => b <= seconds).at(-1);
    return bound === undefined ? 0 : countAt(bound);
  };
  const p99Bound = bounds.find((bound) => countAt(bound) >= 0.99 * commits) ?? Number.POSITIVE_INFINITY;
  return {
    commits,
    p99AtMostMs: p99Bound * 1000,
    over1Ms: commits - atMost(0.001),
    over2Ms: commits - atMost(0.002),
    over5Ms: commits - atMost(0.005),
  };
}
