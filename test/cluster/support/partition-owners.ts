/**
 * Who serves which partition in a ServiceCluster (by the nodes' logs), for the fault tests that
 * must hit one owner (a market id that lands on a given partition: marketIdOnPartition,
 * engine/runtime/shard-routing.ts).
 */
import { eventually } from "../../process/support.js";
import { saveNodeLogs, type ServiceCluster } from "./service-cluster.js";

/** Each node's last lines about partitions, leases, warnings and errors: what a failure message can quote. */
export function ownershipLines(cluster: ServiceCluster, perNode = 15): string {
  return Array.from({ length: cluster.size }, (_, i) => {
    const lines = cluster.output(i).split("\n").filter((line) => /partition|lease|error|warn/i.test(line));
    return `--- node ${cluster.nodeId(i)}${cluster.running(i) ? "" : " (not running)"}\n${lines.slice(-perNode).join("\n")}`;
  }).join("\n");
}

/** Waits until every partition is served by exactly one running node and the running nodes serve as evenly as they can. */
export async function everyPartitionServedOnce(cluster: ServiceCluster, partitions: number, timeoutMs = 60_000): Promise<void> {
  const all = Array.from({ length: partitions }, (_, p) => p);
  const running = () => Array.from({ length: cluster.size }, (_, i) => i).filter((i) => cluster.running(i));
  const settled = (): boolean => {
    const nodes = running();
    if (nodes.length === 0) return false;
    if (!all.every((p) => nodes.filter((i) => cluster.serves(i, p)).length === 1)) return false;
    const counts = nodes.map((i) => all.filter((p) => cluster.serves(i, p)).length);
    return Math.max(...counts) - Math.min(...counts) <= 1;
  };
  await eventually(settled, timeoutMs, "every partition served by exactly one node, evenly").catch((error: unknown) => {
    const owners = all.map((p) => `${p}:${running().filter((i) => cluster.serves(i, p)).map((i) => cluster.nodeId(i)).join("+") || "-"}`).join(" ");
    throw new Error(`${String(error)} (owners ${owners}; logs in ${saveNodeLogs(cluster, "partitions-unsettled")})\n${ownershipLines(cluster)}`);
  });
}

/** The owner of `partition` by the logs, once exactly one running node serves it. */
export async function ownerOnce(cluster: ServiceCluster, partition: number, timeoutMs = 60_000): Promise<number> {
  let owner: number | undefined;
  await eventually(() => {
    const serving = Array.from({ length: cluster.size }, (_, i) => i).filter((i) => cluster.serves(i, partition));
    owner = serving.length === 1 ? serving[0] : undefined;
    return owner !== undefined;
  }, timeoutMs, `one node serving partition ${partition}`);
  return owner as number;
}
