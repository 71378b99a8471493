/**
 * Snapshots of a key home's bindings (engine/cluster/key-bindings.ts; docs/cluster.md, "Idempotency
 * across the cluster"): a new owner of a home starts from the newest snapshot and reads only the
 * bindings after it, and still answers every key the home ever bound. Real 3-node nats-server
 * cluster, the journals and object store the cluster uses.
 */
import type { NatsConnection } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NatsCluster } from "../../scripts/nats-cluster.js";
import { connectForJournals } from "../../engine/messaging/nats/connect.js";
import { NatsMessaging } from "../../engine/messaging/nats/nats-messaging.js";
import { KeyBindings } from "../../engine/cluster/key-bindings.js";
import { IdempotencyIndex } from "../../engine/idempotency/index.js";
import { UnavailableError } from "../../engine/runtime/unavailable.js";

let nats: NatsCluster;
let connection: NatsConnection;
let messaging: NatsMessaging;

beforeAll(async () => {
  nats = await NatsCluster.start();
  connection = await connectForJournals(nats.urls);
  messaging = new NatsMessaging(connection);
}, 120_000);

afterAll(async () => {
  await connection?.close();
  await nats?.stop();
});

/** The commands executed in the home partition itself: none here. */
const executed = new IdempotencyIndex();

/** A node's key bindings; a failed snapshot fails the test. */
function node(): KeyBindings {
  return new KeyBindings(messaging, () => executed, {
    failed: (partition, error) => {
      throw new Error(`key home ${partition} failed: ${String(error)}`);
    },
    snapshotFailed: (partition, error) => {
      throw new Error(`snapshot of home ${partition} failed: ${String(error)}`);
    },
  });
}

/** Binds `count` keys from `first` on, all in one turn (one group commit), with their own fingerprints. */
function bindKeys(bindings: KeyBindings, home: number, first: number, count: number): Promise<string[]> {
  return Promise.all(Array.from({ length: count }, (_, i) => bindings.bind(home, `actor-${(first + i) % 4}`, `command-${first + i}`, `content-${first + i}`, 1)));
}

describe("snapshots of a key home's bindings", () => {
  it("a new owner starts from the newest snapshot, reads only what was bound after it, and still knows every key", async () => {
    const home = 0;
    const before = node();
    expect(await before.open(home, 1)).toEqual({ bindings: 0, fromSnapshot: 0 });
    expect(new Set(await bindKeys(before, home, 0, 40))).toEqual(new Set(["bound"]));
    before.snapshotAll();
    expect(new Set(await bindKeys(before, home, 40, 10))).toEqual(new Set(["bound"]));
    await before.close(home);

    const after = node();
    expect(await after.open(home, 2)).toEqual({ bindings: 50, fromSnapshot: 40 });
    // From the snapshot and from the stream after it: the same content is bound, other content conflicts.
    expect(await after.bind(home, "actor-1", "command-1", "content-1", 1)).toBe("bound");
    expect(await after.bind(home, "actor-1", "command-1", "other content", 1)).toBe("conflict");
    expect(await after.bind(home, "actor-3", "command-47", "other content", 1)).toBe("conflict");
    expect(after.boundOtherwise(home, "actor-2", "command-6", "other content")).toBe(true);
    expect(after.boundOtherwise(home, "actor-2", "command-42", "content-42")).toBe(false);
    // A key never bound binds afresh.
    expect(await after.bind(home, "actor-0", "command-new", "content-new", 1)).toBe("bound");
    await after.close(home);
  }, 60_000);

  it("a snapshot asked for while an append is in flight folds exactly the bindings that append made durable", async () => {
    const home = 1;
    const before = node();
    await before.open(home, 1);
    // Twenty binds staged in one turn are one append; the snapshot waits for it.
    const first = bindKeys(before, home, 0, 20);
    before.snapshotAll();
    expect(new Set(await first)).toEqual(new Set(["bound"]));
    expect(new Set(await bindKeys(before, home, 20, 5))).toEqual(new Set(["bound"]));
    await before.close(home);

    const after = node();
    expect(await after.open(home, 2)).toEqual({ bindings: 25, fromSnapshot: 20 });
    expect(await after.bind(home, "actor-3", "command-19", "other content", 1)).toBe("conflict");
    expect(await after.bind(home, "actor-0", "command-24", "other content", 1)).toBe("conflict");
    await after.close(home);
  }, 60_000);

  it("takes no snapshot of a home that bound nothing since its last one", async () => {
    const home = 2;
    const before = node();
    await before.open(home, 1);
    await bindKeys(before, home, 0, 3);
    before.snapshotAll();
    await before.close(home);

    const again = node();
    expect(await again.open(home, 2)).toEqual({ bindings: 3, fromSnapshot: 3 });
    again.snapshotAll(); // nothing new: the snapshot of epoch 1 stays the newest
    await bindKeys(again, home, 3, 2);
    await again.close(home);

    const last = node();
    expect(await last.open(home, 3)).toEqual({ bindings: 5, fromSnapshot: 3 });
    await last.close(home);
  }, 60_000);

  it("a new owner that read bindings from the stream snapshots them at its next checkpoint, though it bound nothing new", async () => {
    const home = 4;
    const first = node();
    await first.open(home, 1);
    await bindKeys(first, home, 0, 5);
    await first.close(home); // no checkpoint: no snapshot

    const second = node();
    expect(await second.open(home, 2)).toEqual({ bindings: 5, fromSnapshot: 0 });
    second.snapshotAll();
    await second.close(home);

    const third = node();
    expect(await third.open(home, 3)).toEqual({ bindings: 5, fromSnapshot: 5 });
    await third.close(home);
  }, 60_000);

  it("opens a home again only after its close, reading what the closed one made durable", async () => {
    const home = 5;
    const bindings = node();
    await bindings.open(home, 1);
    const bound = bindKeys(bindings, home, 0, 10);
    // Closed and reopened at once, while the ten are in flight: the open waits for them.
    const closed = bindings.close(home);
    const reopened = bindings.open(home, 1);
    expect(new Set(await bound)).toEqual(new Set(["bound"]));
    await closed;
    expect(await reopened).toEqual({ bindings: 10, fromSnapshot: 0 });
    expect(bindings.boundOtherwise(home, "actor-1", "command-9", "other content")).toBe(true);
    await bindings.close(home);
  }, 60_000);

  it("answers a home it does not serve with a 503, never with an unchecked verdict", async () => {
    const bindings = node();
    expect(() => bindings.boundOtherwise(3, "actor-0", "command-0", "content-0")).toThrow(UnavailableError);
    await expect(bindings.bind(3, "actor-0", "command-0", "content-0", 1)).rejects.toBeInstanceOf(UnavailableError);
    expect(bindings.bindingInFlightOtherwise(3, "actor-0", "command-0", "content-0")).toBeUndefined();
  });
});
