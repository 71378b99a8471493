/**
 * The cluster's layout (engine/cluster/cluster-layout.ts) on a real 3-node nats-server cluster: what
 * a new cluster records, what a node that joins reads, and what it refuses: another partition or
 * key home count than the recorded one, a key home count above the partitions. A layout written
 * before key homes existed (format 1) reads as every partition a key home, where its keys are.
 */
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clusterMetaBucket, openClusterLayout } from "../../engine/cluster/cluster-layout.js";
import { NatsMessaging } from "../../engine/messaging/nats/nats-messaging.js";
import { ClusterConfigError } from "../../storage/data-dir-layout.js";
import { loadServiceConfig } from "../../gateway/config.js";
import { NatsCluster } from "../../scripts/nats-cluster.js";

let cluster: NatsCluster;
let connection: NatsConnection;
const NOW_MS = Date.UTC(2026, 10, 29);

beforeAll(async () => {
  cluster = await NatsCluster.start();
  connection = await connect({ servers: cluster.urls });
});

afterAll(async () => {
  await connection?.close();
  await cluster?.stop();
});

/** The layout bucket emptied: the next open creates the cluster's layout. */
async function freshLayout(): Promise<NatsMessaging> {
  const messaging = new NatsMessaging(connection);
  const bucket = await clusterMetaBucket(messaging, 3);
  await bucket.delete("layout").catch(() => undefined);
  return messaging;
}

describe("the cluster layout", () => {
  it("records one key home by default, and a node that joins reads the recorded counts", async () => {
    const messaging = await freshLayout();
    const created = await openClusterLayout(messaging, { partitions: 6, keyHomes: undefined }, NOW_MS);
    expect(created).toMatchObject({ formatVersion: 2, partitions: 6, keyHomes: 1 });
    expect(await openClusterLayout(messaging, { partitions: undefined, keyHomes: undefined }, NOW_MS)).toMatchObject({ partitions: 6, keyHomes: 1 });
  });

  it("records the key homes asked for, and refuses a node that asks for another count, naming both", async () => {
    const messaging = await freshLayout();
    expect(await openClusterLayout(messaging, { partitions: 4, keyHomes: 4 }, NOW_MS)).toMatchObject({ partitions: 4, keyHomes: 4 });
    const refused = openClusterLayout(messaging, { partitions: undefined, keyHomes: 1 }, NOW_MS);
    await expect(refused).rejects.toBeInstanceOf(ClusterConfigError);
    await expect(refused).rejects.toThrow(/CLUSTER_KEY_HOMES=4; this node sets 1/);
  });

  it("refuses more key homes than partitions for a new cluster", async () => {
    const messaging = await freshLayout();
    await expect(openClusterLayout(messaging, { partitions: 2, keyHomes: 3 }, NOW_MS)).rejects.toThrow(/CLUSTER_KEY_HOMES \(3\) must be an integer from 1 to the partition count \(2\)/);
  });

  it("reads a layout of format 1 (before key homes) as every partition a key home, leaves it as it is, and refuses another count", async () => {
    const messaging = await freshLayout();
    const bucket = await clusterMetaBucket(messaging, 3);
    const written = JSON.stringify({ formatVersion: 1, partitions: 5, createdAt: "2026-11-01T00:00:00.000Z" });
    await bucket.create("layout", new TextEncoder().encode(written));
    expect(await openClusterLayout(messaging, { partitions: undefined, keyHomes: undefined }, NOW_MS)).toMatchObject({ formatVersion: 1, partitions: 5, keyHomes: 5 });
    expect(new TextDecoder().decode((await bucket.get("layout"))?.value)).toBe(written);
    await expect(openClusterLayout(messaging, { partitions: undefined, keyHomes: 1 }, NOW_MS)).rejects.toThrow(/created before key homes existed, so each of its 5 partitions is one for good; this node sets 1/);
  });

  it("refuses a recorded layout it cannot trust: an unknown format, or key homes missing, 0 or above the partitions", async () => {
    for (const layout of [
      { formatVersion: 3, partitions: 4, keyHomes: 1 },
      { formatVersion: 2, partitions: 4 },
      { formatVersion: 2, partitions: 4, keyHomes: 0 },
      { formatVersion: 2, partitions: 4, keyHomes: 5 },
      { formatVersion: 2, partitions: 4, keyHomes: 1.5 },
    ]) {
      const messaging = await freshLayout();
      await (await clusterMetaBucket(messaging, 3)).create("layout", new TextEncoder().encode(JSON.stringify({ ...layout, createdAt: "2026-11-29T00:00:00.000Z" })));
      await expect(openClusterLayout(messaging, { partitions: undefined, keyHomes: undefined }, NOW_MS), JSON.stringify(layout)).rejects.toBeInstanceOf(ClusterConfigError);
    }
  });

  it("takes CLUSTER_KEY_HOMES from the environment, in cluster mode only", () => {
    const cluster = { CLUSTER_NATS_URLS: "nats://127.0.0.1:4222", CLUSTER_NODE_ID: "a" };
    expect(loadServiceConfig({ ...cluster, CLUSTER_KEY_HOMES: "3" }).cluster?.keyHomes).toBe(3);
    expect(loadServiceConfig(cluster).cluster?.keyHomes).toBeUndefined();
    expect(() => loadServiceConfig({ ...cluster, CLUSTER_KEY_HOMES: "0" })).toThrow(/CLUSTER_KEY_HOMES: must be an integer from 1 to 256/);
    expect(() => loadServiceConfig({ ...cluster, CLUSTER_KEY_HOMES: "257" })).toThrow(/CLUSTER_KEY_HOMES: must be an integer from 1 to 256/);
    expect(() => loadServiceConfig({ ...cluster, CLUSTER_KEY_HOMES: "two" })).toThrow(/CLUSTER_KEY_HOMES: must be an integer/);
    expect(() => loadServiceConfig({ ...cluster, CLUSTER_PARTITIONS: "4", CLUSTER_KEY_HOMES: "5" })).toThrow(/CLUSTER_KEY_HOMES: must be an integer from 1 to 4/);
    expect(() => loadServiceConfig({ CLUSTER_KEY_HOMES: "2" })).toThrow(/CLUSTER_KEY_HOMES: is a cluster setting/);
  });

  it("takes CLUSTER_SNAPSHOT_EVERY_COMMANDS from the environment, in cluster mode only (decision I57)", () => {
    const cluster = { CLUSTER_NATS_URLS: "nats://127.0.0.1:4222", CLUSTER_NODE_ID: "a" };
    expect(loadServiceConfig({ ...cluster, CLUSTER_SNAPSHOT_EVERY_COMMANDS: "40" }).cluster?.snapshotEveryCommands).toBe(40);
    expect(loadServiceConfig(cluster).cluster?.snapshotEveryCommands).toBe(5_000);
    expect(() => loadServiceConfig({ ...cluster, CLUSTER_SNAPSHOT_EVERY_COMMANDS: "0" })).toThrow(/CLUSTER_SNAPSHOT_EVERY_COMMANDS: must be an integer from 1 to 100000000/);
    expect(() => loadServiceConfig({ ...cluster, CLUSTER_SNAPSHOT_EVERY_COMMANDS: "9007199254740993" })).toThrow(/CLUSTER_SNAPSHOT_EVERY_COMMANDS: must be an integer/);
    expect(() => loadServiceConfig({ CLUSTER_SNAPSHOT_EVERY_COMMANDS: "40" })).toThrow(/CLUSTER_SNAPSHOT_EVERY_COMMANDS: is a cluster setting/);
  });

  it("takes CLUSTER_BATCH_LINGER_MS from the environment, in cluster mode only, 0 turning the wait off (decision I69)", () => {
    const cluster = { CLUSTER_NATS_URLS: "nats://127.0.0.1:4222", CLUSTER_NODE_ID: "a" };
    expect(loadServiceConfig(cluster).cluster?.batchLingerMs).toBe(8);
    expect(loadServiceConfig({ ...cluster, CLUSTER_BATCH_LINGER_MS: "0" }).cluster?.batchLingerMs).toBe(0);
    expect(loadServiceConfig({ ...cluster, CLUSTER_BATCH_LINGER_MS: "3" }).cluster?.batchLingerMs).toBe(3);
    expect(() => loadServiceConfig({ ...cluster, CLUSTER_BATCH_LINGER_MS: "101" })).toThrow(/CLUSTER_BATCH_LINGER_MS: must be an integer from 0 to 100/);
    expect(() => loadServiceConfig({ ...cluster, CLUSTER_BATCH_LINGER_MS: "2.5" })).toThrow(/CLUSTER_BATCH_LINGER_MS: must be an integer/);
    expect(() => loadServiceConfig({ CLUSTER_BATCH_LINGER_MS: "8" })).toThrow(/CLUSTER_BATCH_LINGER_MS: is a cluster setting/);
  });
});
