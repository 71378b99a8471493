/**
 * Partition ownership through leases in a JetStream KV bucket (docs/cluster.md, "Ownership: leases").
 *
 * Each node runs one LeaseManager. A round (on a timer, or called by tests) does three things at
 * once: writes the node's heartbeat, renews the leases it holds, and reads the bucket (every
 * partition's lease, every heartbeat). From what it read it computes the target map
 * (./placement.ts: balanced, sticky) and then gives up what the map gives to another live node and
 * takes what the map gives to it and nobody validly holds.
 *
 * Every write is a compare-and-swap on the revision this node read or wrote last, so a stale read
 * costs a refused write and nothing else: two nodes never both win a lease. Every expiry is judged
 * by the injected clock, and a held lease counts as held only until its expiry minus a safety
 * margin, so a node cut off from NATS (or paused) stops claiming it before any other node may take
 * it over. The lease is for routing and liveness; what keeps a partition's stream safe from an old
 * owner is the fencing in the stream itself (the expected last sequence on every append).
 *
 * The runtime hears about ownership through two callbacks, called per partition strictly in order
 * (one after the other settled): onAcquired when a lease was won, onLost when it is gone or being
 * given up; every onAcquired is followed by exactly one onLost. Neither blocks a round: renewals
 * go on while the runtime opens or stops a partition. When the manager gives a lease up (a
 * rebalance, close, a partition that failed to open) it releases it only after onLost settled, so
 * the runtime has stopped serving before another node can take over.
 *
 * A node that released a lease says so on `leases.<bucket>.released` (core NATS, at most once):
 * every node then runs a round at once instead of at its next period, so the node the placement
 * gives the partition takes it without waiting up to a period (a hand-over's time without an owner
 * is then the old owner's drain and the new one's recovery). A lost message costs only that wait.
 */
import type { Clock } from "../clock.js";
import type { KvBucket } from "../messaging/kv.js";
import type { Messaging } from "../messaging/messaging.js";
import type { Subscription } from "../messaging/transport.js";
import { isMessagingFailure } from "../messaging/messaging-error.js";
import type { TimerHandle, Timers } from "../timers.js";
import { errorText, withRetries } from "../journal/jetstream-retry.js";
import {
  decodeHeartbeat,
  decodeLease,
  encodeHeartbeat,
  encodeLease,
  heartbeatKey,
  NODE_ID_PATTERN,
  partitionKey,
  type LeaseValue,
} from "./lease-value.js";
import { compareIds, placePartitions } from "./placement.js";

/** A release announcement carries nothing: its subject says it all. */
const NO_DATA = new Uint8Array(0);

export interface PartitionLease {
  readonly partition: number;
  readonly epoch: number;
}

export interface LeaseManagerOptions {
  /** The caller's connection; the manager never closes it. Its timers run the rounds and request deadlines. */
  messaging: Messaging;
  /** This node's id, unique in the cluster: [A-Za-z0-9_-]{1,64}. */
  nodeId: string;
  /** The cluster's fixed partition count. */
  partitions: number;
  /** Every expiry is judged by this clock. */
  clock: Clock;
  /** The KV bucket (default "cluster-leases"). */
  bucket?: string;
  /** Replicas of the bucket when this manager creates it (default 3). */
  replicas?: number;
  /** How long a lease or heartbeat is valid after it was written (default 1500). */
  leaseMs?: number;
  /** The round period: renewals, acquisitions, rebalancing (default a third of leaseMs). */
  renewEveryMs?: number;
  /**
   * `holds` turns false this long before the lease's expiry by the local clock, so that a clock
   * running behind another node's by less than this still stops before that node may take over
   * (default a tenth of leaseMs).
   */
  safetyMarginMs?: number;
  /** How long one request to NATS may take before the round moves on (default renewEveryMs). */
  requestTimeoutMs?: number;
  /** How long `open` keeps trying to create or bind the bucket while the cluster is not ready. */
  openTimeoutMs?: number;
  /** Tests: no timer; the test calls round(). */
  manualRounds?: boolean;
  /** The runtime opens and recovers the partition; the manager keeps renewing meanwhile. */
  onAcquired(lease: PartitionLease): Promise<void>;
  /** Stop serving the partition. For a give-up the lease is released only after this settles. */
  onLost(partition: number, reason: string): Promise<void>;
  /** Problems a round rode out (a request that failed, a callback that threw): for the log. */
  onError?(context: string, error: unknown): void;
  /**
   * A partition's lease was seen (read or written) with another holder or epoch than before
   * (`ownerOf` has it already): forwarding follows it. Called synchronously; must not throw.
   */
  onOwnerSeen?(partition: number, owner: SeenOwner): void;
}

export interface SeenOwner {
  readonly node: string | null;
  readonly epoch: number;
  readonly expiresAtMs: number;
}

const DEFAULT_BUCKET = "cluster-leases";
const DEFAULT_REPLICAS = 3;
const DEFAULT_LEASE_MS = 1500;
const DEFAULT_OPEN_TIMEOUT_MS = 15_000;

/** A lease this node holds. */
interface HeldLease {
  readonly partition: number;
  readonly epoch: number;
  /** The bucket revision of the last write of this lease (the CAS base of the next). */
  revision: number;
  /** The expiry of the last write acknowledged, stamped by the local clock before it was sent. */
  expiresAtMs: number;
  /** onLost is queued (given up or lost): no second one. */
  leaving: boolean;
}

/** One partition key as read from the bucket. */
type ReadLease =
  | { readonly kind: "absent" }
  /** Deleted by someone (never by this code): the marker's revision bounds every epoch it had. */
  | { readonly kind: "deleted"; readonly revision: number }
  | { readonly kind: "value"; readonly value: LeaseValue; readonly revision: number }
  | { readonly kind: "unreadable" };

export interface View {
  readonly leases: readonly ReadLease[];
  readonly heartbeats: ReadonlyMap<string, number>;
}

/** The outcome of a compare-and-swap on a lease this node believes it has. */
type CasOutcome =
  | { readonly kind: "written"; readonly revision: number }
  | { readonly kind: "refused"; readonly current: LeaseValue | null }
  | { readonly kind: "failed"; readonly error: unknown };

/** A write refused because the key is not at the revision given (create on an existing key, stale CAS). */
function refused(error: unknown): boolean {
  return isMessagingFailure(error, "wrong-last-sequence");
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value <= 0) throw new RangeError(`${name} must be a positive integer, got ${value}`);
  return value;
}

/**
 * How long after a round ends the next one starts: a period after the last one started, at once if
 * a release was announced meanwhile, and at the moment a lease lapses if that comes first. A lease
 * lapsing before the next round is taken at its expiry, not up to a period later: an owner's death
 * costs the lease's length, not that plus a round (the failover bound). A healthy holder renews a
 * period ahead of its lapse, so this adds no rounds while nothing fails.
 */
export function nextRoundDelayMs(round: { renewEveryMs: number; elapsedMs: number; nowMs: number; nextLapseMs: number; roundWanted: boolean }): number {
  if (round.roundWanted) return 0;
  const periodMs = Math.min(round.renewEveryMs, Math.max(0, round.renewEveryMs - round.elapsedMs));
  return round.nextLapseMs > round.nowMs ? Math.min(periodMs, Math.ceil(round.nextLapseMs - round.nowMs)) : periodMs;
}

/**
 * The earliest moment after `nowMs` a lease another node holds in `view` becomes free to take: its
 * expiry or its holder's heartbeat's, whichever is later (the placement keeps a live holder's
 * partitions). One lapsed already is the round's to take (or another node's), not a moment to wait for.
 */
export function nextLapse(view: View, nodeId: string, nowMs: number): number {
  let earliestMs = Number.POSITIVE_INFINITY;
  for (const read of view.leases) {
    if (read.kind !== "value" || read.value.node === null || read.value.node === nodeId) continue;
    const freeAtMs = Math.max(read.value.expiresAtMs, view.heartbeats.get(read.value.node) ?? 0);
    if (freeAtMs > nowMs) earliestMs = Math.min(earliestMs, freeAtMs);
  }
  return earliestMs;
}

export class LeaseManager {
  private readonly nodeId: string;
  private readonly partitions: number;
  private readonly clock: Clock;
  private readonly leaseMs: number;
  private readonly renewEveryMs: number;
  private readonly marginMs: number;

  private readonly held = new Map<number, HeldLease>();
  /** Per partition, the tail of its callback chain (onAcquired / onLost / release, in order). */
  private readonly callbacks: Array<Promise<void>>;
  /** Per partition, the newest lease value seen (read or written) and its revision. */
  private readonly seen: Array<{ readonly value: SeenOwner; readonly revision: number } | undefined>;
  /** Other nodes' heartbeat expiries, as last read. */
  private heartbeats: ReadonlyMap<string, number> = new Map();
  /** This node's heartbeat expiry as last written (0: none). */
  private ownHeartbeatExpiresAtMs = 0;

  /**
   * Whether the previous round wrote the heartbeat and read the bucket. After a round that could
   * not (NATS unreachable, the bucket's stream electing a leader), the next good round only
   * heartbeats and reads: every node was cut off alike, and each must be seen live again before
   * anyone places partitions, or the first node back would take everything.
   */
  private lastRoundSawBucket = true;
  private rounds: Promise<void> = Promise.resolve();
  private timer: TimerHandle | undefined;
  /** When the timer round set last is due (the clock's ms), how late its timer fired, and how long the round before took: what a lapse is reported with. */
  private roundDueMs = 0;
  private roundTimerLateMs = 0;
  private previousRoundMs = 0;
  private readonly timers: Timers;
  /** A release was announced while a timer round ran: the next one starts as soon as it ends. */
  private roundWanted = false;
  /**
   * When the next lease held by another node lapses unrenewed, as the last read saw the bucket
   * (its owner's lease and heartbeat both expired; Infinity: none will before it is renewed).
   */
  private nextLapseMs = Number.POSITIVE_INFINITY;
  /** Other nodes' release announcements (`releasedSubject`). */
  private releases: Subscription | undefined;
  /** close() began: no more acquisitions, heartbeats or rebalancing; renewals go on until it ends. */
  private closing: Promise<void> | undefined;
  private closed = false;

  private constructor(
    private readonly options: LeaseManagerOptions,
    private readonly kv: KvBucket,
    private readonly bucket: string,
  ) {
    this.timers = options.messaging.timers;
    this.nodeId = options.nodeId;
    this.partitions = options.partitions;
    this.clock = options.clock;
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.renewEveryMs = options.renewEveryMs ?? Math.max(1, Math.floor(this.leaseMs / 3));
    this.marginMs = options.safetyMarginMs ?? Math.floor(this.leaseMs / 10);
    this.callbacks = Array.from({ length: this.partitions }, () => Promise.resolve());
    this.seen = new Array<{ readonly value: SeenOwner; readonly revision: number } | undefined>(this.partitions).fill(undefined);
  }

  /** Creates the bucket if absent, writes this node's heartbeat and runs a first round. */
  static async open(options: LeaseManagerOptions): Promise<LeaseManager> {
    if (!NODE_ID_PATTERN.test(options.nodeId)) throw new RangeError(`nodeId must match [A-Za-z0-9_-]{1,64}, got ${JSON.stringify(options.nodeId)}`);
    positiveInteger("partitions", options.partitions);
    const leaseMs = positiveInteger("leaseMs", options.leaseMs ?? DEFAULT_LEASE_MS);
    const renewEveryMs = positiveInteger("renewEveryMs", options.renewEveryMs ?? Math.max(1, Math.floor(leaseMs / 3)));
    const marginMs = options.safetyMarginMs ?? Math.floor(leaseMs / 10);
    if (!Number.isSafeInteger(marginMs) || marginMs < 0) throw new RangeError(`safetyMarginMs must be a non-negative integer, got ${marginMs}`);
    if (renewEveryMs + marginMs >= leaseMs) {
      throw new RangeError(`renewEveryMs (${renewEveryMs}) plus safetyMarginMs (${marginMs}) must be less than leaseMs (${leaseMs}): a lease would stop counting as held before its next renewal`);
    }
    const replicas = positiveInteger("replicas", options.replicas ?? DEFAULT_REPLICAS);
    const requestTimeoutMs = positiveInteger("requestTimeoutMs", options.requestTimeoutMs ?? renewEveryMs);
    const bucket = options.bucket ?? DEFAULT_BUCKET;
    if (!/^[-\w]+$/.test(bucket)) throw new RangeError(`bucket must be letters, digits, '_' or '-', got ${JSON.stringify(bucket)}`);

    const openTimeoutMs = positiveInteger("openTimeoutMs", options.openTimeoutMs ?? DEFAULT_OPEN_TIMEOUT_MS);
    const { timers } = options.messaging;
    // Reads go to the stream's leader, which has applied every acknowledged write: a node sees
    // another node's heartbeat or lease as soon as that node's write returned. Nothing depends on
    // it for safety (every decision is a CAS), but rounds converge in one step.
    const kv = await withRetries(timers, `opening the lease bucket ${bucket}`, openTimeoutMs, () =>
      options.messaging.jetStream(requestTimeoutMs).kv.open(bucket, { replicas, history: 1 }),
    );
    const manager = new LeaseManager(options, kv, bucket);
    manager.listenForReleases();
    // A bucket just created answers nothing until its stream has a leader and the servers know
    // its subjects: wait for one write and one read to go through, so the first round counts.
    await withRetries(timers, `writing this node's heartbeat in ${bucket}`, openTimeoutMs, () => manager.putHeartbeat(options.clock.nowMs()));
    await withRetries(timers, `reading the lease bucket ${bucket}`, openTimeoutMs, () => kv.get(partitionKey(0)));
    await manager.round();
    manager.schedule();
    return manager;
  }

  /**
   * One round: heartbeat, renewals and the read of the bucket at once; then give up what the
   * placement gives to another live node and take what it gives to this one. Never rejects: a
   * failed request leaves things as they were, and a lease that cannot be renewed stops counting
   * as held by the clock alone.
   */
  round(): Promise<void> {
    const run = this.rounds.then(() => this.runRound()).catch((error: unknown) => this.report("lease round", error));
    this.rounds = run;
    return run;
  }

  /**
   * Whether the partition's owner at `epoch` may go on appending to its stream: while the lease is
   * held, and also after it lapsed because the lease bucket could not be reached (its stream
   * electing a leader after a NATS node died): then no other node can take the lease either,
   * since that too is a write to the bucket. Appending stays safe in any case, because every
   * append is fenced by the stream; what a lapsed lease must not do is answer reads from memory
   * (another owner may have appended meanwhile): those need `holds`.
   */
  mayAppend(partition: number, epoch: number): boolean {
    const lease = this.held.get(partition);
    return lease !== undefined && lease.epoch === epoch && !lease.leaving && !this.closed;
  }

  /** Held at that epoch, and valid for at least the safety margin by the local clock. */
  holds(partition: number, epoch: number): boolean {
    const lease = this.held.get(partition);
    return lease !== undefined && lease.epoch === epoch && this.valid(lease, this.clock.nowMs());
  }

  /** The leases held and valid now, by partition. */
  owned(): PartitionLease[] {
    const nowMs = this.clock.nowMs();
    return [...this.held.values()]
      .filter((lease) => this.valid(lease, nowMs))
      .sort((a, b) => a.partition - b.partition)
      .map((lease) => ({ partition: lease.partition, epoch: lease.epoch }));
  }

  /** Node ids whose heartbeat (as last read or written) has not expired, sorted. */
  liveNodes(): string[] {
    return this.liveAt(this.clock.nowMs());
  }

  /** The partition's lease as last seen by this node (read or written), for metrics. */
  ownerOf(partition: number): SeenOwner | undefined {
    return this.seen[partition]?.value;
  }

  /** Resolves once every callback and release queued so far (and any they queued) has settled. */
  async settled(): Promise<void> {
    for (;;) {
      const tails = [...this.callbacks];
      await Promise.all(tails);
      if (tails.every((tail, partition) => tail === this.callbacks[partition])) return;
    }
  }

  /**
   * Leaves the cluster at once: deletes this node's heartbeat (so the others' placement stops
   * counting it), then for every held lease awaits onLost and releases it, renewing meanwhile (on
   * the timer), so the others take over at their next round instead of after an expiry.
   */
  close(): Promise<void> {
    this.closing ??= this.closeOnce();
    return this.closing;
  }

  private async closeOnce(): Promise<void> {
    await this.rounds;
    try {
      await this.kv.delete(heartbeatKey(this.nodeId));
      this.ownHeartbeatExpiresAtMs = 0;
    } catch (error) {
      this.report("deleting this node's heartbeat", error);
    }
    for (const lease of this.held.values()) {
      if (!lease.leaving) this.giveUp(lease, "this node is leaving the cluster");
    }
    await this.settled();
    this.closed = true;
    this.timer?.cancel();
    this.timer = undefined;
    this.releases?.unsubscribe();
    // A timer round still renewing: the caller may close the connection once this resolves.
    await this.rounds;
  }

  /** The next timer round, `delayMs` from now (a round starts a period after the previous one started). */
  private schedule(delayMs = this.renewEveryMs): void {
    if (this.closed || this.options.manualRounds === true) return;
    // The timer alone does not keep the process alive; the runtime's servers do.
    this.roundDueMs = this.clock.nowMs() + delayMs;
    this.timer = this.timers.after(delayMs, () => this.timedRound()).unref();
  }

  private timedRound(): void {
    this.timer = undefined;
    const startedMs = this.clock.nowMs();
    this.roundTimerLateMs = Math.max(0, startedMs - this.roundDueMs);
    void this.round().then(() => {
      const elapsedMs = this.clock.nowMs() - startedMs;
      this.previousRoundMs = elapsedMs;
      const delayMs = nextRoundDelayMs({ renewEveryMs: this.renewEveryMs, elapsedMs, nowMs: this.clock.nowMs(), nextLapseMs: this.nextLapseMs, roundWanted: this.roundWanted });
      this.roundWanted = false;
      this.schedule(delayMs);
    });
  }

  /** Where a node announces that it released a lease (the bucket's name keeps clusters sharing a NATS apart). */
  private get releasedSubject(): string {
    return `leases.${this.bucket}.released`;
  }

  /** Runs a round at once when another node released a lease: this node may be the one to take it. */
  private listenForReleases(): void {
    if (this.options.manualRounds === true) return;
    this.releases = this.options.messaging.transport.subscribe(this.releasedSubject, {}, () => {
      if (this.closed || this.closing !== undefined) return;
      if (this.timer === undefined) {
        this.roundWanted = true; // a round is running: the next one follows it at once
        return;
      }
      this.timer.cancel();
      this.timedRound();
    });
  }

  private async runRound(): Promise<void> {
    if (this.closed) return;
    const leaving = this.closing !== undefined;
    const startedMs = this.clock.nowMs();
    for (const lease of [...this.held.values()]) {
      // A lease that lapsed while the bucket was out of reach is kept (see mayAppend): nobody can
      // have taken it, since taking it is a write to the same bucket. It is renewed below once the
      // bucket answers, or lost if another node took it meanwhile.
      if (!this.valid(lease, startedMs) && this.lastRoundSawBucket) this.lose(lease, this.lapse(lease, startedMs));
    }
    const renewals = Promise.all([...this.held.values()].map((lease) => this.renew(lease, startedMs)));
    if (leaving) {
      await renewals;
      return;
    }
    const [heartbeatWritten, , view] = await Promise.all([this.writeHeartbeat(startedMs), renewals, this.readView()]);
    const sawBucket = heartbeatWritten && view !== undefined;
    const settled = sawBucket && this.lastRoundSawBucket;
    this.lastRoundSawBucket = sawBucket;
    if (view !== undefined) this.heartbeats = view.heartbeats;
    // Only a settled round's view may hasten the next: the round after an outage waits a period,
    // so that every node is seen live again before anyone takes what lapsed meanwhile.
    this.nextLapseMs = view !== undefined && settled ? nextLapse(view, this.nodeId, this.clock.nowMs()) : Number.POSITIVE_INFINITY;
    if (view === undefined || !settled || this.closing !== undefined) return;
    this.rebalance(view, this.clock.nowMs());
    await this.acquire(view, this.clock.nowMs());
  }

  /**
   * Why a held lease lapsed, with what tells a node whose rounds ran late (its event loop stalled or
   * starved: the timer fired late) from one whose requests were slow (the round before took long).
   */
  private lapse(lease: HeldLease, startedMs: number): string {
    const sentAgoMs = Math.round(startedMs - (lease.expiresAtMs - this.leaseMs));
    return `the lease expired (at ${lease.expiresAtMs}) before it could be renewed: the round that last renewed it started ${sentAgoMs} ms before this one, whose timer fired ${Math.round(this.roundTimerLateMs)} ms late, after a timer round that took ${Math.round(this.previousRoundMs)} ms`;
  }

  private valid(lease: HeldLease, nowMs: number): boolean {
    return nowMs < lease.expiresAtMs - this.marginMs;
  }

  private liveAt(nowMs: number): string[] {
    const live = new Set<string>();
    for (const [node, expiresAtMs] of this.heartbeats) if (expiresAtMs > nowMs) live.add(node);
    if (this.ownHeartbeatExpiresAtMs > nowMs) live.add(this.nodeId);
    return [...live].sort(compareIds);
  }

  private async putHeartbeat(nowMs: number): Promise<void> {
    const expiresAtMs = nowMs + this.leaseMs;
    await this.kv.put(heartbeatKey(this.nodeId), encodeHeartbeat({ node: this.nodeId, expiresAtMs }));
    this.ownHeartbeatExpiresAtMs = expiresAtMs;
  }

  private async writeHeartbeat(nowMs: number): Promise<boolean> {
    try {
      await this.putHeartbeat(nowMs);
      return true;
    } catch (error) {
      this.report("writing this node's heartbeat", error);
      return false;
    }
  }

  /** Every partition's lease and every heartbeat; undefined when the bucket could not be read. */
  private async readView(): Promise<View | undefined> {
    try {
      const [leases, heartbeats] = await Promise.all([
        Promise.all(Array.from({ length: this.partitions }, (_, partition) => this.readLease(partition))),
        this.readHeartbeats(),
      ]);
      return { leases, heartbeats };
    } catch (error) {
      this.report("reading the lease bucket", error);
      return undefined;
    }
  }

  private async readLease(partition: number): Promise<ReadLease> {
    const key = partitionKey(partition);
    const entry = await this.kv.get(key);
    if (entry === null) return { kind: "absent" };
    if (entry.operation !== "PUT") return { kind: "deleted", revision: entry.revision };
    try {
      const value = decodeLease(entry.value, key);
      this.see(partition, value, entry.revision);
      return { kind: "value", value, revision: entry.revision };
    } catch (error) {
      this.report(`reading lease ${key}`, error);
      return { kind: "unreadable" };
    }
  }

  /** The heartbeat keys present (as the bucket's leader knows them), then each one. */
  private async readHeartbeats(): Promise<Map<string, number>> {
    const keys = await this.kv.keys(heartbeatKey("*"));
    const heartbeats = new Map<string, number>();
    await Promise.all(
      keys.map(async (key) => {
        const entry = await this.kv.get(key);
        if (entry === null || entry.operation !== "PUT") return;
        try {
          const value = decodeHeartbeat(entry.value, key);
          if (value.node !== this.nodeId) heartbeats.set(value.node, value.expiresAtMs);
        } catch (error) {
          this.report(`reading heartbeat ${key}`, error);
        }
      }),
    );
    return heartbeats;
  }

  private async renew(lease: HeldLease, nowMs: number): Promise<void> {
    const expiresAtMs = nowMs + this.leaseMs;
    const outcome = await this.compareAndSwap(lease, { node: this.nodeId, epoch: lease.epoch, expiresAtMs });
    if (this.held.get(lease.partition) !== lease) return;
    switch (outcome.kind) {
      case "written":
        lease.revision = outcome.revision;
        lease.expiresAtMs = Math.max(lease.expiresAtMs, expiresAtMs);
        return;
      case "refused": {
        const current = outcome.current;
        const by = current === null ? "the key was deleted" : current.node === null ? `it was released at epoch ${current.epoch}` : `node ${current.node} holds it at epoch ${current.epoch}`;
        this.lose(lease, `the renewal was refused: ${by}`);
        return;
      }
      case "failed":
        // Left as it is: the lease stops counting as held by the clock, and the next round
        // reports it lost if no renewal got through by then.
        this.report(`renewing lease ${partitionKey(lease.partition)}`, outcome.error);
    }
  }

  /**
   * A CAS on a lease this node wrote last, at its last known revision. If refused, the key is read
   * again: an earlier write of ours whose answer was lost (a timeout) may have landed and moved the
   * revision; then the write is tried once more at the revision read.
   */
  private async compareAndSwap(lease: HeldLease, value: LeaseValue): Promise<CasOutcome> {
    const key = partitionKey(lease.partition);
    const bytes = encodeLease(value);
    let revision = lease.revision;
    for (let attempt = 1; ; attempt++) {
      try {
        const written = await this.kv.update(key, bytes, revision);
        this.see(lease.partition, value, written);
        return { kind: "written", revision: written };
      } catch (error) {
        if (!refused(error)) return { kind: "failed", error };
      }
      let current: LeaseValue | null;
      try {
        const entry = await this.kv.get(key);
        current = entry === null || entry.operation !== "PUT" ? null : decodeLease(entry.value, key);
        if (current !== null && entry !== null) this.see(lease.partition, current, entry.revision);
        const ours = current !== null && current.node === this.nodeId && current.epoch === lease.epoch;
        if (!ours || attempt >= 2 || entry === null) return { kind: "refused", current };
        revision = entry.revision;
      } catch (error) {
        return { kind: "failed", error };
      }
    }
  }

  /** Gives up what the placement now gives to another live node. */
  private rebalance(view: View, nowMs: number): void {
    const targets = this.targets(view, nowMs);
    for (const lease of [...this.held.values()]) {
      const target = targets[lease.partition] ?? null;
      if (lease.leaving || target === null || target === this.nodeId) continue;
      this.giveUp(lease, `rebalanced to node ${target}`);
    }
  }

  /** Takes what the placement gives to this node and nobody validly holds. */
  private async acquire(view: View, nowMs: number): Promise<void> {
    const targets = this.targets(view, nowMs);
    const attempts: Array<Promise<void>> = [];
    for (let partition = 0; partition < this.partitions; partition++) {
      if (targets[partition] !== this.nodeId || this.held.has(partition)) continue;
      const read = view.leases[partition] ?? { kind: "unreadable" };
      const expiresAtMs = nowMs + this.leaseMs;
      switch (read.kind) {
        case "absent":
          attempts.push(this.take(partition, { node: this.nodeId, epoch: 1, expiresAtMs }, 0));
          break;
        case "deleted":
          attempts.push(this.take(partition, { node: this.nodeId, epoch: read.revision + 1, expiresAtMs }, read.revision));
          break;
        case "value": {
          const current = read.value;
          const free = current.node === null || current.expiresAtMs <= nowMs || current.node === this.nodeId;
          if (free) attempts.push(this.take(partition, { node: this.nodeId, epoch: current.epoch + 1, expiresAtMs }, read.revision));
          break;
        }
        case "unreadable":
          break;
      }
    }
    await Promise.all(attempts);
  }

  /** Creates (revision 0) or CASes the lease to this node; on success holds it and queues onAcquired. */
  private async take(partition: number, value: LeaseValue, revision: number): Promise<void> {
    const key = partitionKey(partition);
    let written: number;
    try {
      written = revision === 0 ? await this.kv.create(key, encodeLease(value)) : await this.kv.update(key, encodeLease(value), revision);
    } catch (error) {
      // Refused: another node took it first (or it moved since the read); the next round reads again.
      if (!refused(error)) this.report(`acquiring lease ${key}`, error);
      return;
    }
    this.see(partition, value, written);
    // (A close that began meanwhile gives this lease up too: it waits for the round to end.)
    if (this.held.has(partition)) return;
    const lease: HeldLease = { partition, epoch: value.epoch, revision: written, expiresAtMs: value.expiresAtMs, leaving: false };
    this.held.set(partition, lease);
    this.enqueue(partition, async () => {
      let failure: unknown;
      try {
        await this.options.onAcquired({ partition, epoch: value.epoch });
        return;
      } catch (error) {
        failure = error;
        this.report(`opening partition ${partition} at epoch ${value.epoch}`, error);
      }
      // Lost meanwhile: its onLost is queued already.
      if (this.held.get(partition) !== lease || lease.leaving) return;
      lease.leaving = true;
      await this.notifyLost(partition, `opening the partition failed: ${errorText(failure)}`);
      await this.release(lease);
    });
  }

  /**
   * The placement from a view, this node's own leases taken as it knows them. A partition's owner
   * is its lease's node while the lease is valid, and also after it expired while that node is
   * live: a node that could not renew for a while (the bucket had no leader) takes its own
   * partitions back, where their state is, instead of the cluster shuffling them.
   */
  private targets(view: View, nowMs: number): ReadonlyArray<string | null> {
    const live = this.liveAt(nowMs);
    const owners = view.leases.map((read, partition): string | null => {
      if (this.held.has(partition)) return this.nodeId;
      if (read.kind !== "value") return null;
      const { node, expiresAtMs } = read.value;
      if (node === null) return null;
      return expiresAtMs > nowMs || live.includes(node) ? node : null;
    });
    return placePartitions(this.partitions, live, owners);
  }

  /** Keeps the newest value of a lease (reads and writes of one round may answer out of order). */
  private see(partition: number, value: LeaseValue, revision: number): void {
    const current = this.seen[partition];
    if (current !== undefined && current.revision >= revision) return;
    this.seen[partition] = { value, revision };
    if (current?.value.node !== value.node || current.value.epoch !== value.epoch) this.options.onOwnerSeen?.(partition, value);
  }

  /** A held lease is gone (refused, or expired unrenewed): drop it and tell the runtime. */
  private lose(lease: HeldLease, reason: string): void {
    if (this.held.get(lease.partition) !== lease) return;
    this.held.delete(lease.partition);
    if (lease.leaving) return;
    lease.leaving = true;
    this.enqueue(lease.partition, () => this.notifyLost(lease.partition, reason));
  }

  /** onLost first, then the release: the runtime has stopped before another node may take over. */
  private giveUp(lease: HeldLease, reason: string): void {
    lease.leaving = true;
    this.enqueue(lease.partition, async () => {
      await this.notifyLost(lease.partition, reason);
      await this.release(lease);
    });
  }

  /** CAS to `{ node: null, epoch, expiresAtMs: 0 }`: free at once, epoch kept (the key is never deleted). */
  private async release(lease: HeldLease): Promise<void> {
    if (this.held.get(lease.partition) !== lease) return;
    this.held.delete(lease.partition);
    const outcome = await this.compareAndSwap(lease, { node: null, epoch: lease.epoch, expiresAtMs: 0 });
    if (outcome.kind === "failed") this.report(`releasing lease ${partitionKey(lease.partition)}`, outcome.error);
    if (outcome.kind !== "written") return;
    try {
      this.options.messaging.transport.publish(this.releasedSubject, NO_DATA);
    } catch (error) {
      this.report("announcing a released lease", error); // the others take it at their next round
    }
  }

  private async notifyLost(partition: number, reason: string): Promise<void> {
    try {
      await this.options.onLost(partition, reason);
    } catch (error) {
      this.report(`stopping partition ${partition}`, error);
    }
  }

  /** Runs `task` after every earlier callback of the partition settled; a failure is reported, never thrown. */
  private enqueue(partition: number, task: () => Promise<void>): void {
    const previous = this.callbacks[partition] ?? Promise.resolve();
    this.callbacks[partition] = previous.then(task).catch((error: unknown) => this.report(`partition ${partition} callbacks`, error));
  }

  private report(context: string, error: unknown): void {
    try {
      this.options.onError?.(context, error);
    } catch {
      // A failing error hook must not stop a round.
    }
  }
}
