/**
 * A key home's appends wait for company (engine/cluster/key-bindings.ts, decision I70): after an
 * append that served bindings for at least two partitions, the next waits up to the linger for more;
 * a home that serves one partition's owner (one message at a time) never waits. Real 3-node
 * nats-server cluster; the linger's time stepped by the test, so nothing waits on real time (the clock moves only once).
 */
import { jetstreamManager, type JetStreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NatsCluster } from "../../scripts/nats-cluster.js";
import { connectForJournals } from "../../engine/messaging/nats/connect.js";
import { NatsMessaging } from "../../engine/messaging/nats/nats-messaging.js";
import type { Messaging } from "../../engine/messaging/messaging.js";
import { KeyBindings, keysStream } from "../../engine/cluster/key-bindings.js";
import { IdempotencyIndex } from "../../engine/idempotency/index.js";
import { SteppedTimers } from "../support/stepped-timers.js";

let nats: NatsCluster;
let connection: NatsConnection;
let jsm: JetStreamManager;

beforeAll(async () => {
  nats = await NatsCluster.start();
  connection = await connectForJournals(nats.urls);
  jsm = await jetstreamManager(connection);
}, 120_000);

afterAll(async () => {
  await connection?.close();
  await nats?.stop();
});

const LINGER_MS = 8;

/** Binds `count` keys for market partition `partition`, all in one turn (as one bind message's). */
function bindKeys(bindings: KeyBindings, home: number, tag: string, count: number, partition: number): Promise<string[]> {
  return Promise.all(Array.from({ length: count }, (_, i) => bindings.bind(home, "actor", `${tag}-${i}`, `content-${tag}-${i}`, partition)));
}

describe("a key home's appends that wait for company (decision I70)", () => {
  it("never hold a home serving one partition's owner, and gather two partitions' bindings after an append that served two", async () => {
    const timers = new SteppedTimers();
    const messaging: Messaging = Object.assign(Object.create(new NatsMessaging(connection)) as NatsMessaging, { timers });
    const executed = new IdempotencyIndex();
    const bindings = new KeyBindings(messaging, () => executed, {
      failed: (partition, error) => {
        throw new Error(`key home ${partition} failed: ${String(error)}`);
      },
      snapshotFailed: () => undefined,
    }, LINGER_MS);
    const home = 0;
    await bindings.open(home, 1);
    const messages = async (): Promise<number> => (await jsm.streams.info(keysStream(home))).state.messages;

    // One partition's owner, one message after another: never held (the clock never moves here).
    expect(new Set(await bindKeys(bindings, home, "a", 20, 1))).toEqual(new Set(["bound"]));
    expect(new Set(await bindKeys(bindings, home, "b", 10, 1))).toEqual(new Set(["bound"]));
    // Two partitions' bindings staged in one turn: one append, after which the next waits for company.
    const before = await messages();
    const pair = await Promise.all([bindKeys(bindings, home, "c", 4, 2), bindKeys(bindings, home, "d", 4, 3)]);
    expect(new Set(pair.flat())).toEqual(new Set(["bound"]));
    const afterPair = await messages();
    expect(afterPair).toBe(before + 1);
    // Held: a binding that arrives in a later turn joins it, and both leave once the wait ends.
    const held = bindKeys(bindings, home, "e", 5, 3);
    await new Promise((resolve) => setImmediate(resolve));
    const joined = bindKeys(bindings, home, "f", 5, 4);
    await timers.step(LINGER_MS);
    expect(new Set([...(await held), ...(await joined)])).toEqual(new Set(["bound"]));
    expect(await messages()).toBe(afterPair + 1);
    await bindings.close(home);
  }, 60_000);
});
