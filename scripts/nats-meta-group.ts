/**
 * Whether every running nats-server of a cluster is in its JetStream meta group, read from the
 * servers' monitoring endpoint (`/jsz`).
 *
 * Why this exists: /healthz answers 200 on each server once it knows a meta leader, but a freshly
 * created nats-server 2.10.27 cluster whose servers start together sometimes forms its meta group
 * without one of them (cluster_size 2 of 3). That server still reports healthy, yet no R3 stream can
 * be placed ("no suitable peers for placement"), and it stays so for minutes; restarting the
 * server left out brings it in (docs/cluster.md, "A server left out of the meta group").
 * Both launchers of local clusters (scripts/nats-cluster.ts, scripts/local-cluster.ts)
 * wait for this check, not only /healthz.
 */

/** A running server: its name (`server_name`) and monitoring port on loopback. */
export interface MonitoredServer {
  readonly name: string;
  readonly monitorPort: number;
}

export interface MetaGroupState {
  /** The meta leader's name, when some server knows one. */
  readonly leader: string | undefined;
  /** Running servers the leader does not list as meta group members at all (a restart brings them in). */
  readonly absent: readonly string[];
  /**
   * Running members the leader does not report current. Not a readiness condition: after a restart
   * under load the leader went on reporting a member not current for longer than 20 s while every
   * stream served; only an absent server keeps R3 streams from being placed.
   */
  readonly lagging: readonly string[];
}

interface JszMetaCluster {
  leader?: string;
  replicas?: { name: string; current: boolean }[];
}

async function metaClusterOf(server: MonitoredServer): Promise<JszMetaCluster | undefined> {
  try {
    const response = await fetch(`http://127.0.0.1:${server.monitorPort}/jsz`, { signal: AbortSignal.timeout(1000) });
    if (response.status !== 200) return undefined;
    return ((await response.json()) as { meta_cluster?: JszMetaCluster }).meta_cluster;
  } catch {
    return undefined;
  }
}

/** The meta group as the leader sees it, against the servers that run. */
export async function metaGroupState(running: readonly MonitoredServer[]): Promise<MetaGroupState> {
  const views = await Promise.all(running.map(metaClusterOf));
  const leader = views.find((view) => view?.leader !== undefined && view.leader !== "")?.leader;
  const leaderIndex = running.findIndex((server) => server.name === leader);
  const leaderView = leaderIndex < 0 ? undefined : views[leaderIndex];
  if (leader === undefined || leaderView === undefined) return { leader, absent: [], lagging: running.map((server) => server.name) };
  const replicas = new Map((leaderView.replicas ?? []).map((replica) => [replica.name, replica.current]));
  const others = running.filter((server) => server.name !== leader);
  return {
    leader,
    absent: others.filter((server) => !replicas.has(server.name)).map((server) => server.name),
    lagging: others.filter((server) => replicas.get(server.name) === false).map((server) => server.name),
  };
}

/** How long a launcher lets a running server stay out of the meta group before restarting it, and how many restarts one wait makes. */
const LEFT_OUT_GRACE_MS = 2000;
const LEFT_OUT_RESTARTS = 3;

/**
 * A launcher's watch over the meta group while it waits for a cluster to be ready: `check` polls the
 * group once and restarts (through the launcher's `restart`) a server left out for longer than the
 * grace, at most a few times per wait. One per wait; both launchers use it.
 */
export class MetaGroupWatch {
  private readonly leftOut: GraceRestarts;

  constructor(restart: (name: string) => Promise<void>, nowMs: () => number = () => performance.now()) {
    this.leftOut = new GraceRestarts(LEFT_OUT_GRACE_MS, LEFT_OUT_RESTARTS, restart, nowMs);
  }

  /** Undefined once a leader lists every running server as a member; otherwise what is missing. */
  async check(running: readonly MonitoredServer[]): Promise<string | undefined> {
    const meta = await metaGroupState(running);
    if (meta.leader !== undefined && meta.absent.length === 0) return undefined;
    for (const name of meta.absent) await this.leftOut.still(name);
    return `meta leader ${meta.leader ?? "unknown"}; not members: ${meta.absent.join(", ") || "none"}; not current: ${meta.lagging.join(", ") || "none"}`;
  }
}

/**
 * Restarts a server once a condition has held for it longer than `graceMs`, at most `maxRestarts`
 * times in all: `still(name)` each time the condition is seen, `clear(name)` when it is not.
 */
export class GraceRestarts {
  private readonly sinceMs = new Map<string, number>();
  private restarts = 0;

  constructor(
    private readonly graceMs: number,
    private readonly maxRestarts: number,
    private readonly restart: (name: string) => Promise<void>,
    private readonly nowMs: () => number = () => performance.now(),
  ) {}

  async still(name: string): Promise<void> {
    const since = this.sinceMs.get(name) ?? this.nowMs();
    this.sinceMs.set(name, since);
    if (this.nowMs() - since < this.graceMs || this.restarts >= this.maxRestarts) return;
    this.restarts += 1;
    this.sinceMs.delete(name);
    await this.restart(name);
  }

  clear(name: string): void {
    this.sinceMs.delete(name);
  }
}
