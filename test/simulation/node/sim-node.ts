/**
 * A service node of the simulated cluster: one process at a time (an incarnation), composed as a
 * cluster node is in production (gateway/cluster-node.ts and service.ts: the cluster's layout, the
 * identity store as one writer and follower of the shared identity stream, then the runtime with
 * its leases, all on one idempotency index), on the simulated NATS and the node's own clock and timers. Shards run in-process
 * (sim-shard-thread.ts), replays too (sim-replays.ts).
 *
 * A crash ends the incarnation: its memory is gone, its connections drop, nothing it awaited ever
 * settles; only what the NATS servers stored survives. A restart is a new incarnation, recovered
 * from NATS like any node that starts. A pause holds every event of the process until it resumes.
 */
import { tmpdir } from "node:os";
import * as path from "node:path";
import { openClusterLayout } from "../../../engine/cluster/cluster-layout.js";
import type { ClusterRuntime } from "../../../engine/cluster/cluster-runtime.js";
import type { ClusterSettings } from "../../../engine/cluster/cluster-settings.js";
import { IdempotencyIndex } from "../../../engine/idempotency/index.js";
import { identityJournalOpener, openClusterRuntime } from "../../../gateway/cluster-node.js";
import { IdentityStore } from "../../../engine/identity/store.js";
import { Actor, type Scheduler } from "../scheduler.js";
import type { Trace } from "../trace.js";
import { SimConnection } from "../nats/sim-connection.js";
import type { SimNats } from "../nats/sim-nats.js";
import { NodeTimers } from "./node-timers.js";
import { SimReplays } from "./sim-replays.js";
import { SimShardThread, type ShardThreadHost } from "./sim-shard-thread.js";

export interface NodeSettings {
  readonly partitions: number;
  readonly keyHomes: number;
  readonly leaseMs: number;
  readonly forwardTimeoutMs: number;
  readonly checkpointEverySeconds: number;
  readonly snapshotEveryCommands: number;
  readonly batchLingerMs: number;
  /** How often a partition's shard checks its timer wheel. */
  readonly tickIntervalMs: number;
  /** Epoch milliseconds at simulated time 0. */
  readonly epochMs: number;
}

/** The operator of the simulated cluster: it provisions identities (SERVICE_OPERATOR_ACTORS). */
export const OPERATOR = "operator";

/** The identity store's directory: created by IdentityStore.open, written by nothing in cluster mode. */
const IDENTITY_DIR = path.join(tmpdir(), "market-service-simulation", "identity");

/** Fields of the runtime's log lines that measure real time: left out of the trace, which must replay exactly. */
const UNTRACED_FIELDS = new Set(["elapsedMs", "shardRecoveryMs", "streamOpenMs"]);

function fieldsText(fields: Record<string, unknown>): string {
  return Object.entries(fields)
    .filter(([name]) => !UNTRACED_FIELDS.has(name))
    .map(([name, value]) => `${name}=${typeof value === "string" ? value : JSON.stringify(value)}`)
    .join(" ");
}

export class SimNode implements ShardThreadHost {
  actor: Actor;
  timers: NodeTimers;
  incarnation = 0;
  state: "down" | "starting" | "up" = "down";
  runtime: ClusterRuntime | undefined;
  identity: IdentityStore | undefined;
  private connections = new Set<SimConnection>();
  private ids = 0;

  constructor(
    readonly name: string,
    readonly scheduler: Scheduler,
    private readonly nats: SimNats,
    private readonly trace: Trace,
    private readonly settings: NodeSettings,
    private skewMs: number,
  ) {
    this.actor = new Actor(name);
    this.timers = new NodeTimers(scheduler, this.actor, settings.epochMs, skewMs);
  }

  get clock(): NodeTimers {
    return this.timers;
  }

  uniqueId(): string {
    this.ids += 1;
    return `${this.name}.${this.incarnation}.${this.ids}`;
  }

  connect(label: string): SimConnection {
    const connection = new SimConnection(this.nats, this, `${this.name} ${label}`);
    this.connections.add(connection);
    return connection;
  }

  /** Starts a new incarnation (with `skewMs` as its clock's skew, if given). */
  start(skewMs: number = this.skewMs): void {
    this.skewMs = skewMs;
    this.incarnation += 1;
    this.actor = new Actor(`${this.name}#${this.incarnation}`);
    this.timers = new NodeTimers(this.scheduler, this.actor, this.settings.epochMs, skewMs);
    this.connections = new Set();
    this.state = "starting";
    this.trace.add(this.name, `starts (incarnation ${this.incarnation}, clock ${skewMs >= 0 ? "+" : ""}${skewMs} ms)`);
    const actor = this.actor;
    this.scheduler.after(0, actor, () => {
      this.boot().then(
        ({ runtime, identity }) => {
          if (this.actor !== actor) return;
          this.runtime = runtime;
          this.identity = identity;
          this.state = "up";
          this.trace.add(this.name, "serving");
        },
        (error: unknown) => {
          if (this.actor !== actor) return;
          this.trace.add(this.name, `failed to start: ${error instanceof Error ? error.message : String(error)}`);
          this.crash("its start failed");
        },
      );
    });
  }

  private async boot(): Promise<{ runtime: ClusterRuntime; identity: IdentityStore }> {
    const { settings } = this;
    const messaging = this.connect("main");
    const layout = await openClusterLayout(messaging, { partitions: settings.partitions, keyHomes: settings.keyHomes }, this.clock.nowMs(), 3);
    const cluster: ClusterSettings = {
      natsUrls: ["sim://nats"],
      nodeId: this.name,
      partitions: settings.partitions,
      keyHomes: settings.keyHomes,
      leaseMs: settings.leaseMs,
      forwardTimeoutMs: settings.forwardTimeoutMs,
      snapshotEveryCommands: settings.snapshotEveryCommands,
      batchLingerMs: settings.batchLingerMs,
    };
    const idempotency = new IdempotencyIndex({ seed: 1 });
    const identity = await IdentityStore.open({
      // Created, never written: in cluster mode the identity log is the stream.
      dir: IDENTITY_DIR,
      clock: this.clock,
      timers: this.timers,
      idempotency,
      isOperator: (actorId) => actorId === OPERATOR,
      openJournal: identityJournalOpener({ messaging, settings: cluster }),
    });
    const runtime = await openClusterRuntime(
      { messaging, settings: cluster, layout },
      {
        clock: this.clock,
        controlledClock: false,
        idempotency,
        checkpointEverySeconds: settings.checkpointEverySeconds,
        tickIntervalMs: settings.tickIntervalMs,
        log: (level, message, fields) => this.trace.add(this.name, `${level === "info" ? "" : `${level}: `}${message} ${fieldsText(fields)}`.trimEnd()),
        onBatch: () => undefined,
        startThread: () => new SimShardThread(this),
        replays: new SimReplays(this.timers),
      },
    );
    return { runtime, identity };
  }

  /** kill -9: the process and everything in its memory are gone. */
  crash(why: string): void {
    if (this.state === "down") return;
    this.trace.add(this.name, `crashes (${why})`);
    this.scheduler.kill(this.actor);
    for (const connection of this.connections) connection.drop();
    this.connections.clear();
    this.runtime = undefined;
    this.identity = undefined;
    this.state = "down";
  }

  /** SIGTERM: the runtime gives its partitions up (drains, snapshots, releases), then the process ends. */
  stop(): Promise<void> {
    const runtime = this.runtime;
    const identity = this.identity;
    if (this.state !== "up" || runtime === undefined || identity === undefined) {
      this.crash("stopped before it served");
      return Promise.resolve();
    }
    this.trace.add(this.name, "stops (SIGTERM)");
    this.state = "starting";
    this.runtime = undefined;
    this.identity = undefined;
    const actor = this.actor;
    // As the service stops: the runtime, then the identity store.
    return (async () => {
      await runtime.close();
      await identity.close();
    })().then(
      () => {
        if (this.actor === actor) this.crash("it stopped");
      },
      (error: unknown) => {
        if (this.actor === actor) this.crash(`its stop failed: ${error instanceof Error ? error.message : String(error)}`);
      },
    );
  }

  /** SIGSTOP for `ms`, then SIGCONT. */
  pause(ms: number): void {
    if (this.state === "down") return;
    this.trace.add(this.name, `paused for ${ms} ms`);
    const actor = this.actor;
    this.scheduler.pause(actor);
    this.scheduler.after(ms, this.nats.actor, () => {
      if (actor.state !== "paused") return;
      this.trace.add(this.name, "resumes");
      this.scheduler.resume(actor);
    });
  }

  /** The node was cut off from NATS, or reaches it again. */
  cutChanged(cut: boolean): void {
    for (const connection of this.connections) connection.cutChanged(cut);
  }
}
