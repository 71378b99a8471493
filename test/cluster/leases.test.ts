/**
 * Partition leases (engine/cluster/leases.ts) on a real 3-node nats-server cluster, R3 bucket.
 *
 * Time is a ManualClock shared by the managers (as if their clocks agreed) and rounds are called by
 * the test, so expiry is reached by moving the clock, never by sleeping. Each test uses its own
 * bucket. The last test kills the NATS cluster under managers running on their timers.
 */
import { Kvm, type KV } from "@nats-io/kv";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../engine/clock.js";
import { LeaseManager, type LeaseManagerOptions, type PartitionLease } from "../../engine/cluster/leases.js";
import { connectForJournals } from "../../engine/messaging/nats/connect.js";
import { NatsMessaging } from "../../engine/messaging/nats/nats-messaging.js";
import { withRetries } from "../../engine/journal/jetstream-retry.js";
import { viaNats } from "../../engine/messaging/nats/nats-errors.js";
import { systemTimers } from "../../engine/timers.js";
import { eventually } from "../process/support.js";
import { HoldingProxy } from "./support/holding-proxy.js";
import { NatsCluster } from "../../scripts/nats-cluster.js";

const PARTITIONS = 6;
const LEASE_MS = 1500;
const RENEW_MS = 500;
const MARGIN_MS = 150;
const START_MS = Date.UTC(2026, 0, 1);
/**
 * How long one request to NATS may take, in real time. The leases' time is the ManualClock, so this
 * only bounds waiting for NATS (and how long a request held by a proxy takes to fail); the default
 * (renewEveryMs, 500 ms here) failed every round on this 2-core machine at a load average near 35.
 */
const REQUEST_TIMEOUT_MS = 5_000;

let cluster: NatsCluster;
/** The test's own connection, to read and write the bucket behind the managers' backs. */
let observer: NatsConnection;
const connections: NatsConnection[] = [];
const managers: LeaseManager[] = [];
const proxies: HoldingProxy[] = [];
let buckets = 0;

beforeAll(async () => {
  cluster = await NatsCluster.start();
  observer = await connectForJournals(cluster.urls);
});

afterEach(async () => {
  // Managers of a test whose NATS is gone close within their request timeouts.
  for (const manager of managers.splice(0)) await manager.close();
  for (const connection of connections.splice(0)) await connection.close().catch(() => undefined);
  for (const proxy of proxies.splice(0)) await proxy.close();
});

afterAll(async () => {
  await observer?.close().catch(() => undefined);
  await cluster?.stop();
});

function freshBucket(): string {
  buckets += 1;
  return `leases-${process.pid}-${buckets}`;
}

interface Lost {
  readonly partition: number;
  readonly reason: string;
}

/** A service node as the lease manager sees it: what it was told, and its manager. */
interface TestNode {
  readonly name: string;
  readonly manager: LeaseManager;
  readonly acquired: PartitionLease[];
  readonly lost: Lost[];
  readonly errors: string[];
}

interface NodeOptions {
  readonly bucket: string;
  readonly clock: ManualClock;
  readonly servers?: string[];
  /** A connection of the test's making (instead of one to `servers`). */
  readonly connection?: NatsConnection;
  /** Runs inside onLost before it resolves (to look at the bucket then, or to hold it open). */
  readonly whileLosing?: (lost: Lost) => Promise<void>;
  readonly options?: Partial<LeaseManagerOptions>;
}

async function startNode(name: string, { bucket, clock, servers = cluster.urls, connection: given, whileLosing, options = {} }: NodeOptions): Promise<TestNode> {
  const connection = given ?? (await connectForJournals(servers, name));
  connections.push(connection);
  const acquired: PartitionLease[] = [];
  const lost: Lost[] = [];
  const errors: string[] = [];
  const manager = await LeaseManager.open({
    messaging: new NatsMessaging(connection),
    nodeId: name,
    partitions: PARTITIONS,
    clock,
    bucket,
    leaseMs: LEASE_MS,
    renewEveryMs: RENEW_MS,
    safetyMarginMs: MARGIN_MS,
    requestTimeoutMs: REQUEST_TIMEOUT_MS,
    manualRounds: true,
    onAcquired: async (lease) => {
      acquired.push(lease);
    },
    onLost: async (partition, reason) => {
      await whileLosing?.({ partition, reason });
      lost.push({ partition, reason });
    },
    onError: (context, error) => errors.push(`${context}: ${error instanceof Error ? error.message : String(error)}`),
    ...options,
  });
  managers.push(manager);
  return { name, manager, acquired, lost, errors };
}

async function openBucket(bucket: string): Promise<KV> {
  return new Kvm(observer).open(bucket);
}

interface StoredLease {
  readonly node: string | null;
  readonly epoch: number;
  readonly expiresAtMs: number;
  readonly revision: number;
}

async function storedLease(kv: KV, partition: number): Promise<StoredLease | undefined> {
  const entry = await kv.get(`partition.${partition}`);
  if (entry === null || entry.operation !== "PUT") return undefined;
  return { ...(entry.json() as Omit<StoredLease, "revision">), revision: entry.revision };
}

async function storedLeases(kv: KV): Promise<StoredLease[]> {
  return Promise.all(Array.from({ length: PARTITIONS }, async (_, p) => (await storedLease(kv, p)) as StoredLease));
}

/** Who holds what, by the managers' own account: partition → [node, epoch] for every holder. */
function holders(nodes: readonly TestNode[]): Map<number, Array<[string, number]>> {
  const result = new Map<number, Array<[string, number]>>();
  for (const node of nodes) {
    for (const lease of node.manager.owned()) {
      if (!node.manager.holds(lease.partition, lease.epoch)) throw new Error(`${node.name} lists partition ${lease.partition} but does not hold it`);
      result.set(lease.partition, [...(result.get(lease.partition) ?? []), [node.name, lease.epoch]]);
    }
  }
  return result;
}

/** Every partition has exactly one holder, and the bucket agrees with it. */
async function expectExclusive(kv: KV, nodes: readonly TestNode[]): Promise<void> {
  const held = holders(nodes);
  const stored = await storedLeases(kv);
  for (let partition = 0; partition < PARTITIONS; partition++) {
    const owners = held.get(partition) ?? [];
    expect(owners, `holders of partition ${partition}`).toHaveLength(1);
    const [[node, epoch]] = owners as [[string, number]];
    expect(stored[partition], `stored lease of partition ${partition}`).toMatchObject({ node, epoch });
  }
}

const partitionsOf = (node: TestNode): number[] => node.manager.owned().map((lease) => lease.partition);
const epochsOf = (node: TestNode): Map<number, number> => new Map(node.manager.owned().map((lease) => [lease.partition, lease.epoch]));

/** Rounds of every node in turn, each `RENEW_MS` after the previous on the shared clock. */
async function rounds(clock: ManualClock, nodes: readonly TestNode[], count = 1): Promise<void> {
  for (let i = 0; i < count; i++) {
    clock.advance(RENEW_MS);
    for (const node of nodes) {
      await node.manager.round();
      await node.manager.settled();
    }
  }
}

/** Polls `check` until it holds; fails naming `what` after `timeoutMs` (a real event, bounded). */
async function waitFor(what: string, check: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * Every value written to the partition keys, in revision order, from a watch on the bucket started
 * before the managers: the epochs' history.
 */
class EpochHistory {
  readonly values = new Map<number, Array<{ node: string | null; epoch: number; revision: number }>>();
  private constructor(private readonly stop: () => void) {}

  static async watch(kv: KV): Promise<EpochHistory> {
    const watch = await kv.watch({ key: "partition.>" });
    const history = new EpochHistory(() => watch.stop());
    void (async () => {
      for await (const entry of watch) {
        if (entry.operation !== "PUT") continue;
        const partition = Number(entry.key.slice("partition.".length));
        const value = entry.json() as { node: string | null; epoch: number };
        history.values.set(partition, [...(history.values.get(partition) ?? []), { node: value.node, epoch: value.epoch, revision: entry.revision }]);
      }
    })();
    return history;
  }

  /** Waits (bounded) until the watch has seen every partition key at its current revision. */
  async caughtUp(kv: KV): Promise<void> {
    const stored = await storedLeases(kv);
    const deadline = Date.now() + 60_000;
    while (!stored.every((lease, partition) => this.values.get(partition)?.at(-1)?.revision === lease.revision)) {
      if (Date.now() > deadline) throw new Error("the watch on the lease bucket did not catch up");
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    this.stop();
  }

  /**
   * Epochs never go backwards: every write keeps the epoch (renewal, release) or raises it by
   * exactly one (acquisition), and an acquisition (a change of holder) always raises it.
   */
  expectMonotonic(): void {
    for (const [partition, writes] of this.values) {
      expect(writes[0]?.epoch, `first epoch of partition ${partition}`).toBe(1);
      for (let i = 1; i < writes.length; i++) {
        const before = writes[i - 1] as { node: string | null; epoch: number };
        const after = writes[i] as { node: string | null; epoch: number };
        const step = after.epoch - before.epoch;
        expect([0, 1], `partition ${partition}: epoch ${before.epoch} → ${after.epoch}`).toContain(step);
        if (after.node !== null && after.node !== before.node) expect(step, `partition ${partition} taken by ${after.node}`).toBe(1);
        if (after.node === null) expect(step, `partition ${partition} released`).toBe(0);
      }
    }
  }
}

describe("LeaseManager", () => {
  it("refuses options it cannot work with, naming the option", async () => {
    const base: LeaseManagerOptions = {
      messaging: new NatsMessaging(observer),
      nodeId: "a",
      partitions: PARTITIONS,
      clock: new ManualClock(START_MS),
      bucket: freshBucket(),
      manualRounds: true,
      onAcquired: async () => undefined,
      onLost: async () => undefined,
    };
    await expect(LeaseManager.open({ ...base, nodeId: "a.b" })).rejects.toThrow(/nodeId must match/);
    await expect(LeaseManager.open({ ...base, nodeId: "x".repeat(65) })).rejects.toThrow(/nodeId must match/);
    await expect(LeaseManager.open({ ...base, partitions: 0 })).rejects.toThrow(/partitions must be a positive integer/);
    await expect(LeaseManager.open({ ...base, leaseMs: 900, renewEveryMs: 800, safetyMarginMs: 100 })).rejects.toThrow(/renewEveryMs \(800\) plus safetyMarginMs \(100\) must be less than leaseMs \(900\)/);
    await expect(LeaseManager.open({ ...base, bucket: "a.b" })).rejects.toThrow(/bucket must be/);
  });

  it("gives every partition exactly one holder at epoch 1 when two nodes race for the same partitions", async () => {
    // A stale view makes the race certain. a reads the bucket while b does not exist yet, and the
    // replies are held back (a proxy) while b joins and takes its share; then a gets its view,
    // in which it is alone, and tries to create every partition it does not hold, b's included.
    const bucket = freshBucket();
    const clock = new ManualClock(START_MS);
    const kv = await withRetries(systemTimers, "creating the bucket", 15_000, () => viaNats(() => new Kvm(observer).create(bucket, { replicas: 3, history: 1, allow_direct: false })));
    // A node z, live only at first, so that a's first round takes half (0, 2, 4), not everything.
    await withRetries(systemTimers, "writing z's heartbeat", 15_000, () => viaNats(() => kv.put("node.z", JSON.stringify({ node: "z", expiresAtMs: START_MS + RENEW_MS }))));
    const proxy = await HoldingProxy.start(cluster.nodes[0]?.clientPort as number);
    proxies.push(proxy);
    // No pings while the replies are held: the connection must survive the hold.
    const viaProxy = await connect({ servers: [proxy.url], pingInterval: 60_000 });
    const a = await startNode("a", { bucket, clock, connection: viaProxy, options: { requestTimeoutMs: 15_000 } });
    expect(a.manager.owned()).toEqual([0, 2, 4].map((partition) => ({ partition, epoch: 1 })));

    clock.set(START_MS + RENEW_MS);
    proxy.hold();
    const staleRound = a.manager.round();
    // The server has answered a's reads (the stream's subject list and the six leases) before b exists.
    await waitFor("the server's answers to a's reads", () => {
      const held = proxy.heldText();
      return held.includes("stream_info_response") && (held.match(/stream_msg_get_response/g) ?? []).length >= PARTITIONS;
    });
    const b = await startNode("b", { bucket, clock });
    expect(b.manager.liveNodes()).toEqual(["a", "b"]);
    expect(b.manager.owned()).toEqual([1, 3, 5].map((partition) => ({ partition, epoch: 1 })));
    proxy.release();
    await staleRound;
    // a's view had no b: it wanted all six, and its creates of 1, 3, 5 were refused.
    expect(a.manager.liveNodes()).toEqual(["a"]);
    expect(a.manager.owned()).toEqual([0, 2, 4].map((partition) => ({ partition, epoch: 1 })));
    await expectExclusive(kv, [a, b]);
    expect(a.errors).toEqual([]);
    expect([...a.acquired, ...b.acquired].map((lease) => lease.partition).sort()).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it("splits the partitions between two nodes that open at once, one holder each", async () => {
    const bucket = freshBucket();
    const clock = new ManualClock(START_MS);
    const [a, b] = await Promise.all([startNode("a", { bucket, clock }), startNode("b", { bucket, clock })]);
    await rounds(clock, [a, b], 2);
    const kv = await openBucket(bucket);
    await expectExclusive(kv, [a, b]);
    expect(partitionsOf(a)).toHaveLength(3);
    expect(partitionsOf(b)).toHaveLength(3);
  });

  it("spreads 6 partitions 6, 3/3, 2/2/2 over 1, 2, 3 nodes; a join moves only the newcomer's share, each released after onLost", async () => {
    const bucket = freshBucket();
    const clock = new ManualClock(START_MS);
    let gate: Promise<void> | undefined;
    /** What the bucket said while each onLost ran. */
    const storedWhileLosing = new Map<string, StoredLease | undefined>();
    let kv: KV | undefined;
    const whileLosing = (name: string) => async (lost: Lost) => {
      storedWhileLosing.set(`${name}:${lost.partition}`, kv === undefined ? undefined : await storedLease(kv, lost.partition));
      await gate;
    };

    const a = await startNode("a", { bucket, clock, whileLosing: whileLosing("a") });
    kv = await openBucket(bucket);
    const history = await EpochHistory.watch(kv);
    expect(a.manager.owned()).toEqual([0, 1, 2, 3, 4, 5].map((partition) => ({ partition, epoch: 1 })));
    expect(a.manager.liveNodes()).toEqual(["a"]);

    // b joins: its share (a's highest three) moves, only after a's onLost for each settled.
    let openGate = (): void => undefined;
    gate = new Promise((resolve) => (openGate = resolve));
    const b = await startNode("b", { bucket, clock, whileLosing: whileLosing("b") });
    expect(b.manager.owned()).toEqual([]);
    clock.advance(RENEW_MS);
    await a.manager.round();
    // a is stopping 3, 4, 5 (onLost pending): it still holds and renews them; b cannot take them.
    clock.advance(RENEW_MS);
    await a.manager.round();
    await b.manager.round();
    for (const partition of [3, 4, 5]) {
      expect(a.manager.holds(partition, 1)).toBe(true);
      expect(await storedLease(kv, partition)).toMatchObject({ node: "a", epoch: 1, expiresAtMs: clock.nowMs() + LEASE_MS });
    }
    expect(partitionsOf(b)).toEqual([]);
    openGate();
    gate = undefined;
    await a.manager.settled();
    for (const partition of [3, 4, 5]) {
      expect(storedWhileLosing.get(`a:${partition}`)).toMatchObject({ node: "a", epoch: 1 });
      expect(a.manager.holds(partition, 1)).toBe(false);
      expect(await storedLease(kv, partition)).toMatchObject({ node: null, epoch: 1, expiresAtMs: 0 });
    }
    expect(a.lost.map((lost) => lost.partition).sort()).toEqual([3, 4, 5]);
    for (const lost of a.lost) expect(lost.reason).toMatch(/rebalanced to node b/);
    await rounds(clock, [b, a]);
    expect(epochsOf(a)).toEqual(new Map([[0, 1], [1, 1], [2, 1]]));
    expect(epochsOf(b)).toEqual(new Map([[3, 2], [4, 2], [5, 2]]));
    await expectExclusive(kv, [a, b]);

    // c joins: one partition from each (their highest), nothing else moves.
    const c = await startNode("c", { bucket, clock, whileLosing: whileLosing("c") });
    await rounds(clock, [a, b, c], 2);
    expect(epochsOf(a)).toEqual(new Map([[0, 1], [1, 1]]));
    expect(epochsOf(b)).toEqual(new Map([[3, 2], [4, 2]]));
    expect(epochsOf(c)).toEqual(new Map([[2, 2], [5, 3]]));
    expect(storedWhileLosing.get("a:2")).toMatchObject({ node: "a", epoch: 1 });
    expect(storedWhileLosing.get("b:5")).toMatchObject({ node: "b", epoch: 2 });
    expect(a.lost.map((lost) => lost.partition).sort()).toEqual([2, 3, 4, 5]);
    expect(b.lost.map((lost) => lost.partition)).toEqual([5]);
    expect(c.lost).toEqual([]);
    for (const node of [a, b, c]) expect(node.manager.liveNodes()).toEqual(["a", "b", "c"]);
    for (let partition = 0; partition < PARTITIONS; partition++) {
      const owner = [a, b, c].find((node) => partitionsOf(node).includes(partition));
      for (const node of [a, b, c]) expect(node.manager.ownerOf(partition)).toMatchObject({ node: owner?.name });
    }
    await expectExclusive(kv, [a, b, c]);
    await history.caughtUp(kv);
    history.expectMonotonic();
    for (const node of [a, b, c]) expect(node.errors).toEqual([]);
  });

  it("hands a stopped node's partitions to another at epoch + 1 once they expire; the stopped node's holds() turns false by its clock and its next round reports onLost", async () => {
    const bucket = freshBucket();
    const clock = new ManualClock(START_MS);
    const a = await startNode("a", { bucket, clock });
    const kv = await openBucket(bucket);
    const history = await EpochHistory.watch(kv);
    const b = await startNode("b", { bucket, clock });
    await rounds(clock, [a, b], 2);
    expect(partitionsOf(a)).toEqual([0, 1, 2]);
    expect(partitionsOf(b)).toEqual([3, 4, 5]);
    const before = epochsOf(a);

    // a stops (SIGSTOP): no more rounds. b goes on; a's leases are still valid for a while.
    for (let i = 0; i < 2; i++) {
      clock.advance(RENEW_MS);
      await b.manager.round();
      expect(partitionsOf(b)).toEqual([3, 4, 5]);
      expect(a.manager.owned().map((lease) => lease.partition)).toEqual([0, 1, 2]);
    }
    // At a's expiry minus the margin: a no longer claims them, by its clock alone.
    clock.advance(LEASE_MS - 2 * RENEW_MS - MARGIN_MS);
    for (const [partition, epoch] of before) expect(a.manager.holds(partition, epoch)).toBe(false);
    expect(a.manager.owned()).toEqual([]);
    await b.manager.round();
    // Not expired yet for the others (the margin): b waits.
    expect(partitionsOf(b)).toEqual([3, 4, 5]);
    clock.advance(MARGIN_MS);
    await b.manager.round();
    expect(b.manager.liveNodes()).toEqual(["b"]);
    expect(epochsOf(b)).toEqual(new Map([...[...before].map(([partition, epoch]): [number, number] => [partition, epoch + 1]), [3, 2], [4, 2], [5, 2]]));
    await b.manager.settled();
    expect(b.acquired.map((lease) => lease.partition).sort()).toEqual([0, 1, 2, 3, 4, 5]);

    // a resumes: its round reports every lease lost, then rejoins and gets its share back.
    const rebalanced = a.lost.length;
    expect(a.lost.map((lost) => lost.reason)).toEqual(["rebalanced to node b", "rebalanced to node b", "rebalanced to node b"]);
    clock.advance(RENEW_MS);
    await a.manager.round();
    await a.manager.settled();
    const resumed = a.lost.slice(rebalanced);
    expect(resumed.map((lost) => lost.partition)).toEqual([0, 1, 2]);
    for (const lost of resumed) expect(lost.reason).toMatch(/expired/);
    expect(partitionsOf(a)).toEqual([]);
    await rounds(clock, [b, a], 2);
    expect(partitionsOf(a)).toHaveLength(3);
    expect(partitionsOf(b)).toHaveLength(3);
    await expectExclusive(kv, [a, b]);
    await history.caughtUp(kv);
    history.expectMonotonic();
  });

  it("reports onLost when a renewal is refused because another holder took the lease", async () => {
    const bucket = freshBucket();
    const clock = new ManualClock(START_MS);
    const a = await startNode("a", { bucket, clock });
    const kv = await openBucket(bucket);
    const stolen = (await storedLease(kv, 0)) as StoredLease;
    await kv.update("partition.0", JSON.stringify({ node: "intruder", epoch: stolen.epoch + 1, expiresAtMs: clock.nowMs() + LEASE_MS }), stolen.revision);
    clock.advance(RENEW_MS);
    await a.manager.round();
    await a.manager.settled();
    expect(a.lost).toEqual([{ partition: 0, reason: expect.stringMatching(/refused.*intruder.*epoch 2/) as unknown as string }]);
    expect(a.manager.holds(0, 1)).toBe(false);
    expect(partitionsOf(a)).toEqual([1, 2, 3, 4, 5]);
    expect(await storedLease(kv, 0)).toMatchObject({ node: "intruder", epoch: 2 });
    expect(a.manager.ownerOf(0)).toMatchObject({ node: "intruder", epoch: 2 });
  });

  it("keeps epochs above every earlier one when a lease key was deleted behind the managers' backs", async () => {
    const bucket = freshBucket();
    const clock = new ManualClock(START_MS);
    const a = await startNode("a", { bucket, clock });
    const kv = await openBucket(bucket);
    await kv.delete("partition.0");
    const marker = (await kv.get("partition.0")) as { revision: number; operation: string };
    expect(marker.operation).toBe("DEL");
    clock.advance(RENEW_MS);
    await a.manager.round();
    await a.manager.settled();
    expect(a.lost).toEqual([{ partition: 0, reason: expect.stringMatching(/refused.*deleted/) as unknown as string }]);
    clock.advance(RENEW_MS);
    await a.manager.round();
    // The deletion marker's revision bounds every epoch the key had (each was a write before it).
    expect(a.manager.owned()[0]).toEqual({ partition: 0, epoch: marker.revision + 1 });
    expect(await storedLease(kv, 0)).toMatchObject({ node: "a", epoch: marker.revision + 1 });
  });

  it("close() calls onLost, releases every lease (epoch kept) and removes the heartbeat, so another node takes over at its next round", async () => {
    const bucket = freshBucket();
    const clock = new ManualClock(START_MS);
    let kv: KV | undefined;
    const storedWhileLosing = new Map<number, StoredLease | undefined>();
    const a = await startNode("a", {
      bucket,
      clock,
      whileLosing: async (lost) => void storedWhileLosing.set(lost.partition, kv === undefined ? undefined : await storedLease(kv, lost.partition)),
    });
    kv = await openBucket(bucket);
    const b = await startNode("b", { bucket, clock });
    await rounds(clock, [a, b], 2);
    const before = epochsOf(a);
    expect([...before.keys()]).toEqual([0, 1, 2]);

    const rebalanced = a.lost.length;
    await a.manager.close();
    // The leases are given up together: their onLost calls settle in any order.
    const leaving = a.lost.slice(rebalanced).sort((x, y) => x.partition - y.partition);
    expect(leaving).toEqual([0, 1, 2].map((partition) => ({ partition, reason: "this node is leaving the cluster" })));
    for (const [partition, epoch] of before) {
      expect(storedWhileLosing.get(partition)).toMatchObject({ node: "a", epoch });
      expect(await storedLease(kv, partition)).toMatchObject({ node: null, epoch, expiresAtMs: 0 });
      expect(a.manager.holds(partition, epoch)).toBe(false);
    }
    expect((await kv.get("node.a"))?.operation).toBe("DEL");
    // No time passes: b takes them now, not at an expiry.
    await b.manager.round();
    expect(b.manager.liveNodes()).toEqual(["b"]);
    expect(epochsOf(b)).toEqual(new Map([...[...before].map(([partition, epoch]): [number, number] => [partition, epoch + 1]), [3, 2], [4, 2], [5, 2]]));
    await expectExclusive(kv, [b]);
    // A closed manager's rounds do nothing.
    await a.manager.round();
    expect(a.manager.owned()).toEqual([]);
  });

  it("a released lease is announced: a node on its timer takes it at once, not at its next round", async () => {
    const bucket = freshBucket();
    const clock = new ManualClock(START_MS);
    // Rounds a minute apart: without the announcement b would take nothing for a minute.
    const timed = { manualRounds: false, leaseMs: 200_000, renewEveryMs: 60_000 };
    const a = await startNode("a", { bucket, clock, options: timed });
    await a.manager.settled();
    expect(a.acquired.map((lease) => lease.partition).sort()).toEqual([0, 1, 2, 3, 4, 5]);
    const b = await startNode("b", { bucket, clock, options: timed });
    await b.manager.settled();
    expect(b.acquired).toEqual([]);
    await a.manager.close();
    await eventually(() => b.acquired.length === PARTITIONS, 60_000, "b taking the partitions a released");
    expect(b.acquired.map((lease) => lease.partition).sort()).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it("with NATS silent (a proxy holding its replies): rounds resolve, holds() turns false at expiry by the clock, the lapsed lease is kept for appending until another node takes it, then lost", async () => {
    // The proxy passes a's requests and holds the replies: a's writes land unacknowledged (lost
    // acks). a must still stop claiming its leases by its own account, before what is stored.
    const bucket = freshBucket();
    const clock = new ManualClock(START_MS);
    const proxy = await HoldingProxy.start(cluster.nodes[0]?.clientPort as number);
    proxies.push(proxy);
    const a = await startNode("a", { bucket, clock, servers: [proxy.url] });
    const kv = await openBucket(bucket);
    expect(partitionsOf(a)).toEqual([0, 1, 2, 3, 4, 5]);
    const written = clock.nowMs();

    proxy.hold();
    clock.advance(RENEW_MS);
    await a.manager.round();
    expect(a.errors.some((error) => /renewing lease/.test(error))).toBe(true);
    // Not renewed, still valid until its expiry minus the margin.
    expect(partitionsOf(a)).toEqual([0, 1, 2, 3, 4, 5]);
    clock.set(written + LEASE_MS - MARGIN_MS - 1);
    expect(a.manager.holds(0, 1)).toBe(true);
    clock.set(written + LEASE_MS - MARGIN_MS);
    expect(a.manager.owned()).toEqual([]);
    for (let partition = 0; partition < PARTITIONS; partition++) expect(a.manager.holds(partition, 1)).toBe(false);
    for (const stored of await storedLeases(kv)) expect(stored.expiresAtMs).toBeGreaterThan(clock.nowMs());
    // The bucket could not be reached, so nobody else can have taken the leases: a keeps them for
    // appending (fenced by the streams in any case), not for reads.
    await a.manager.round();
    await a.manager.settled();
    expect(a.lost).toEqual([]);
    for (let partition = 0; partition < PARTITIONS; partition++) expect(a.manager.mayAppend(partition, 1)).toBe(true);

    // Once everything a wrote has expired (its last heartbeat was sent at this round), b takes all.
    clock.advance(LEASE_MS);
    const b = await startNode("b", { bucket, clock });
    expect(b.manager.liveNodes()).toEqual(["b"]);
    expect(b.manager.owned()).toEqual([0, 1, 2, 3, 4, 5].map((partition) => ({ partition, epoch: 2 })));
    await expectExclusive(kv, [a, b]);
    // When a reaches the bucket again, its renewals are refused: the leases are lost.
    proxy.release();
    await a.manager.round();
    await a.manager.settled();
    expect(a.lost.map((lost) => lost.partition).sort((x, y) => x - y)).toEqual([0, 1, 2, 3, 4, 5]);
    for (const lost of a.lost) expect(lost.reason).toMatch(/refused|expired/);
    for (let partition = 0; partition < PARTITIONS; partition++) expect(a.manager.mayAppend(partition, 1)).toBe(false);
  });

  it("after an outage every node cut off alike (the bucket's stream electing a leader) takes back its own partitions, none moves", async () => {
    const bucket = freshBucket();
    const clock = new ManualClock(START_MS);
    const nodes: TestNode[] = [];
    const nodeProxies: HoldingProxy[] = [];
    for (const name of ["a", "b"]) {
      const proxy = await HoldingProxy.start(cluster.nodes[0]?.clientPort as number);
      proxies.push(proxy);
      nodeProxies.push(proxy);
      const connection = await connect({ servers: [proxy.url], pingInterval: 60_000 });
      nodes.push(await startNode(name, { bucket, clock, connection }));
    }
    const [a, b] = nodes as [TestNode, TestNode];
    await rounds(clock, [a, b], 2);
    const before = [epochsOf(a), epochsOf(b)];
    expect([...(before[0] as Map<number, number>).keys()]).toEqual([0, 1, 2]);
    expect([...(before[1] as Map<number, number>).keys()]).toEqual([3, 4, 5]);

    const [lostBefore, acquiredBefore] = [[a.lost.length, b.lost.length], [a.acquired.length, b.acquired.length]];
    // Nothing answers either node for longer than a lease.
    for (const proxy of nodeProxies) proxy.hold();
    clock.advance(RENEW_MS);
    await Promise.all([a.manager.round(), b.manager.round()]);
    clock.advance(LEASE_MS);
    expect([...a.manager.owned(), ...b.manager.owned()]).toEqual([]);
    for (const proxy of nodeProxies) proxy.release();

    // Lapsed, not lost: nobody could take a lease while nobody reached the bucket.
    for (const [partition, epoch] of before[0] as Map<number, number>) expect(a.manager.mayAppend(partition, epoch)).toBe(true);
    for (const [partition, epoch] of before[1] as Map<number, number>) expect(b.manager.mayAppend(partition, epoch)).toBe(true);
    // The first good rounds renew every lapsed lease at its own epoch: nothing lost, nothing moves.
    await rounds(clock, [a, b], 2);
    await Promise.all([a.manager.settled(), b.manager.settled()]);
    expect([a.lost.length, b.lost.length]).toEqual(lostBefore);
    expect([a.acquired.length, b.acquired.length]).toEqual(acquiredBefore);
    expect(epochsOf(a)).toEqual(before[0]);
    expect(epochsOf(b)).toEqual(before[1]);
    await expectExclusive(await openBucket(bucket), [a, b]);
  });

  it("never lets a timer round reject while the NATS cluster is killed; holds() turns false at expiry, the lapsed leases are kept for appending, close() still resolves and gives them up", async () => {
    const rejections: unknown[] = [];
    const onRejection = (reason: unknown): void => void rejections.push(reason);
    process.on("unhandledRejection", onRejection);
    try {
      const bucket = freshBucket();
      const clock = new ManualClock(START_MS);
      const a = await startNode("a", { bucket, clock, options: { manualRounds: false } });
      const b = await startNode("b", { bucket, clock, options: { manualRounds: false } });
      // The timers run real rounds; the clock stays put, so nothing expires until it is moved.
      await waitFor("a 3/3 spread", () => partitionsOf(a).length === 3 && partitionsOf(b).length === 3);
      const held = [...a.manager.owned(), ...b.manager.owned()];
      const lostBefore = a.lost.length + b.lost.length;

      await Promise.all(cluster.nodes.map((_, index) => cluster.kill(index)));
      const errorsBefore = a.errors.length + b.errors.length;
      await waitFor("failed timer rounds", () => a.errors.length + b.errors.length >= errorsBefore + 6);
      expect(partitionsOf(a).length + partitionsOf(b).length).toBe(PARTITIONS);

      clock.advance(LEASE_MS);
      for (const lease of held) {
        expect(a.manager.holds(lease.partition, lease.epoch) || b.manager.holds(lease.partition, lease.epoch)).toBe(false);
      }
      for (const lease of held) {
        expect(a.manager.mayAppend(lease.partition, lease.epoch) || b.manager.mayAppend(lease.partition, lease.epoch)).toBe(true);
      }
      expect(a.lost.length + b.lost.length).toBe(lostBefore);
      await Promise.all([a.manager.close(), b.manager.close()]);
      expect(a.lost.length + b.lost.length).toBe(lostBefore + PARTITIONS);
      // Opening while NATS is down gives up after its open timeout, naming the bucket.
      const connection = connections[0] as NatsConnection;
      await expect(
        LeaseManager.open({ messaging: new NatsMessaging(connection), nodeId: "c", partitions: PARTITIONS, clock, bucket, openTimeoutMs: 1_000, onAcquired: async () => undefined, onLost: async () => undefined }),
      ).rejects.toThrow(new RegExp(`opening the lease bucket ${bucket}: no answer within 1000 ms`));
      expect(rejections).toEqual([]);
    } finally {
      process.off("unhandledRejection", onRejection);
    }
  });
});
