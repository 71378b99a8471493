/**
 * What kill -9 of one NATS node does to partition leases: 3 lease managers (engine/cluster/leases.ts,
 * default timings, the real clock and timers) over `--partitions` partitions on a real 3-node
 * nats-server cluster (R3 lease bucket). Each run kills either the node leading the bucket's stream
 * or a follower, measures from the kill to the first partition no longer held anywhere and to every
 * partition held again, counts onLost calls and whether any partition changed node, then restarts
 * the node and waits until its replica of the bucket is current before the next run.
 *
 *   node --import tsx bench/lease-leader-loss.bench.ts -- [--runs 3] [--partitions 12]
 *
 * Needs scripts/fetch-nats-server.sh. Prints one JSON line per kill; writes nothing.
 */
import { jetstreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { systemClock } from "../engine/clock.js";
import { LeaseManager } from "../engine/cluster/leases.js";
import { connectForJournals } from "../engine/messaging/nats/connect.js";
import { NatsMessaging } from "../engine/messaging/nats/nats-messaging.js";
import { NatsCluster } from "../scripts/nats-cluster.js";
import { numberArg } from "./args.js";

const RUNS = numberArg("runs", 3);
const PARTITIONS = numberArg("partitions", 12);
const NODES = ["s1", "s2", "s3"];
/** How long one kill is watched before it counts as "not back". */
const WATCH_MS = 30_000;

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const cluster = await NatsCluster.start();
const connections: NatsConnection[] = [];
const managers: LeaseManager[] = [];
let lostCount = 0;
try {
  for (const nodeId of NODES) {
    const connection = await connectForJournals(cluster.urls, nodeId);
    connections.push(connection);
    managers.push(
      await LeaseManager.open({
        messaging: new NatsMessaging(connection),
        nodeId,
        partitions: PARTITIONS,
        clock: systemClock,
        onAcquired: async () => undefined,
        onLost: async () => void (lostCount += 1),
      }),
    );
  }
  const held = (): number => managers.reduce((sum, manager) => sum + manager.owned().length, 0);
  const owners = (): string => managers.map((manager) => manager.owned().map((lease) => lease.partition).join(",")).join(" | ");
  const balanced = (): boolean => held() === PARTITIONS && managers.every((manager) => Math.abs(manager.owned().length - PARTITIONS / NODES.length) < 1);
  const jsm = await jetstreamManager(connections[0] as NatsConnection);

  const stable = async (): Promise<void> => {
    while (!balanced()) await pause(20);
    for (;;) {
      const info = await jsm.streams.info("KV_cluster-leases").catch(() => undefined);
      const replicas = info?.cluster?.replicas ?? [];
      if (info?.cluster?.leader !== undefined && replicas.length === NODES.length - 1 && replicas.every((replica) => replica.current)) break;
      await pause(100);
    }
  };

  await stable();
  for (let run = 0; run < RUNS; run++) {
    for (const victim of ["leader", "follower"] as const) {
      const info = await jsm.streams.info("KV_cluster-leases");
      const name = victim === "leader" ? (info.cluster?.leader as string) : (info.cluster?.replicas?.[0]?.name as string);
      const index = cluster.indexOf(name);
      const ownersBefore = owners();
      lostCount = 0;
      const killedAt = Date.now();
      await cluster.kill(index);
      let firstNotHeldMs: number | null = null;
      let allHeldAgainMs: number | null = null;
      while (Date.now() - killedAt < WATCH_MS) {
        const count = held();
        if (count < PARTITIONS && firstNotHeldMs === null) firstNotHeldMs = Date.now() - killedAt;
        if (firstNotHeldMs !== null && count === PARTITIONS) {
          allHeldAgainMs = Date.now() - killedAt;
          break;
        }
        // A follower's loss changes nothing: watch a few lease periods and stop.
        if (firstNotHeldMs === null && Date.now() - killedAt > 5_000) break;
        await pause(10);
      }
      console.log(JSON.stringify({ killed: `${victim} (${name})`, firstNotHeldMs, allHeldAgainMs, onLost: lostCount, ownersBefore, ownersAfter: owners() }));
      await cluster.restart(index);
      await stable();
      // Let the restarted node settle before the next kill.
      await pause(2_000);
    }
  }
} finally {
  for (const manager of managers) await manager.close();
  for (const connection of connections) await connection.close();
  await cluster.stop();
}
