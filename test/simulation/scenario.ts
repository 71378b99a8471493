/**
 * A seed's world: how many nodes and partitions, their clocks, the timings, how long faults and the
 * workload last, which faults and what workload, all drawn from the seed.
 */
import { drawFaults, drawSkew, type PlannedFault } from "./faults.js";
import type { Random } from "./random.js";
import { drawWorkload, type WorkloadPlan } from "./workload.js";
import { drawIdentityPlan } from "./identity-workload.js";

export interface Scenario {
  readonly nodes: ReadonlyArray<{ readonly name: string; readonly skewMs: number }>;
  readonly partitions: number;
  /** The partitions that bind idempotency keys (cluster-layout.ts): 1..partitions. */
  readonly keyHomes: number;
  readonly leaseMs: number;
  readonly forwardTimeoutMs: number;
  readonly checkpointEverySeconds: number;
  /** Commands in no snapshot after which a partition's shard snapshots itself (CLUSTER_SNAPSHOT_EVERY_COMMANDS). */
  readonly snapshotEveryCommands: number;
  /** After a batch of company, how long a partition's next batch waits for more (CLUSTER_BATCH_LINGER_MS; 0: never). */
  readonly batchLingerMs: number;
  /** How often a partition's shard checks its timer wheel for due deadlines. */
  readonly tickIntervalMs: number;
  /** Faults and the workload happen before this instant; then every fault heals. */
  readonly activeMs: number;
  /** How long after the heal every command must have its answer. */
  readonly settleMs: number;
  readonly faults: readonly PlannedFault[];
  readonly workload: WorkloadPlan;
}

export function drawScenario(random: Random): Scenario {
  const names = ["a", "b", "c", "d"].slice(0, random.pick([2, 3, 3, 3, 4]));
  const leaseMs = 1_500;
  const nodes = names.map((name) => ({ name, skewMs: drawSkew(random, leaseMs) }));
  const activeMs = random.int(4_000, 16_000);
  const partitions = random.int(1, 6);
  const scenario: Omit<Scenario, "keyHomes" | "snapshotEveryCommands" | "batchLingerMs"> = {
    nodes,
    partitions,
    leaseMs,
    forwardTimeoutMs: 5_000,
    checkpointEverySeconds: random.pick([0, 2, 5]),
    tickIntervalMs: random.pick([100, 250, 500]),
    activeMs,
    settleMs: 45_000,
    faults: drawFaults(random.fork("faults"), names, activeMs, leaseMs),
    // Drawn last: the draws before it are those of seeds before identity commands were simulated.
    workload: drawWorkload(random.fork("workload"), activeMs, drawIdentityPlan(random.fork("identity"), activeMs)),
  };
  // Drawn after the workload, for the same reason. Half the seeds make every partition a key home
  // (a cluster created before key homes, the most bindings in flight at once), half any count.
  const homes = random.fork("key-homes");
  const keyHomes = homes.chance(0.5) ? partitions : homes.int(1, partitions);
  // Drawn last, for the same reason: snapshots every few commands (takeovers from a snapshot and a
  // short tail, snapshots asked for mid-storm) or, as before, only at the periodic checkpoints.
  const snapshotEveryCommands = random.fork("checkpoint-commands").pick([10, 50, 100_000_000]);
  // Drawn last as well: batches that wait for company (the default's wait, a short one) or never.
  const batchLingerMs = random.fork("batch-linger").pick([0, 3, 8]);
  return { ...scenario, keyHomes, snapshotEveryCommands, batchLingerMs };
}

export function describeScenario(scenario: Scenario): string {
  const nodes = scenario.nodes.map((node) => `${node.name} (clock ${node.skewMs >= 0 ? "+" : ""}${node.skewMs} ms)`).join(", ");
  const w = scenario.workload;
  return (
    `${scenario.nodes.length} nodes: ${nodes}; ${scenario.partitions} partitions (${scenario.keyHomes} key home${scenario.keyHomes === 1 ? "" : "s"}); lease ${scenario.leaseMs} ms; checkpoints every ${scenario.checkpointEverySeconds} s and every ${scenario.snapshotEveryCommands} commands on a partition; batches wait ${scenario.batchLingerMs} ms for company; ` +
    `faults for ${scenario.activeMs} ms; ${w.markets.length} markets (${w.markets.map((m) => `${m.id} ${m.mechanism}${m.mechanism === "direct" ? ` cap ${m.capacity} ${m.confirmation}` : ""}`).join(", ")}), ` +
    `${w.participants.length} participants${w.hot ? ", hot first market" : ""}` +
    (w.identity.principals.length > 0 ? `; ${w.identity.principals.length} principals provisioned, ${w.identity.delegationsEach} delegation(s) each` : "")
  );
}
