/**
 * `npm run bench:partition-open`: how long a new owner's shard takes to open a partition (the
 * `shardOpenMs` of its takeover, less the thread's start and messages; engine/runtime/partition-shard.ts)
 * on a real 3-node nats-server cluster on this machine (scripts/nats-cluster.ts): the connection
 * (`shardConnectMs` in the `partition acquired` line), the stream's open (its last batch, its
 * snapshots, the claim: `streamOpenMs`), everything before recovery (that open and the check of the
 * idempotency snapshot, which the shard loads once; measured here from outside, as a build that does
 * not report `streamOpenMs` can be measured too) and the recovery proper (`shardRecoveryMs`).
 *
 *   npm run bench:partition-open -- [--markets 20] [--before 3000] [--after 1200] [--batch 13] [--rounds 15]
 *
 * The first owner creates `--markets` markets, executes `--before` claims in batches of `--batch`,
 * snapshots the shard and, as its node does, the partition's idempotency entries under that mark,
 * then executes `--after` more. Each round then opens the partition anew at the next epoch, as a
 * takeover does. Needs scripts/fetch-nats-server.sh. Prints each round and the medians; writes nothing.
 */
import { ManualClock } from "../engine/clock.js";
import { connectMessaging } from "../engine/messaging/nats/nats-messaging.js";
import { openPartitionShard } from "../engine/runtime/partition-shard.js";
import { partitionStream } from "../engine/cluster/partition-host.js";
import { PartitionIndexes } from "../engine/cluster/partition-indexes.js";
import type { IdempotencyIndex } from "../engine/idempotency/index.js";
import type { ShardRequest } from "../engine/shard-protocol/shard-protocol.js";
import { commandRequest } from "../engine/shard-protocol/shard-protocol.js";
import { buildCommand, buildIdentity, type Command } from "../engine/index.js";
import { NatsCluster } from "../scripts/nats-cluster.js";
import { numberArg } from "./args.js";
import { cpuSecondsOf } from "./storm/processes.js";
import { median } from "./storm/paired-rounds.js";

const MARKETS = numberArg("markets", 20);
const BEFORE = numberArg("before", 3_000);
const AFTER = numberArg("after", 1_200);
const BATCH = numberArg("batch", 13);
const ROUNDS = numberArg("rounds", 15);

const PARTITION = 0;
const STREAM = partitionStream(PARTITION);
const START_MS = Date.parse("2026-03-01T12:00:00.000Z");


function openShard(urls: readonly string[], epoch: number) {
  return connectMessaging(urls, `${STREAM} epoch ${epoch}`).then((messaging) => openPartitionShard(messaging, { stream: STREAM, epoch }, { shardIndex: PARTITION, clock: new ManualClock(START_MS) }));
}

/** The first owner's commands: markets, then claims spread over them, each committed and entered in the node's index. */
async function fill(urls: readonly string[]): Promise<void> {
  const first = await openShard(urls, 1);
  const node = await connectMessaging(urls, "bench node");
  // A bench whose snapshot of the entries failed measures nothing: stop it.
  const indexes = new PartitionIndexes(node, (_, error) => {
    throw error;
  });
  indexes.open(PARTITION, first.opened.idempotency);
  const index = indexes.get(PARTITION) as IdempotencyIndex;
  const execute = async (requests: ShardRequest[]): Promise<void> => {
    const responses = await first.opened.core.processBatch(requests);
    requests.forEach((sent, i) => {
      const response = responses[i];
      if (sent.kind !== "command" || response?.kind !== "command" || !response.reply.ok) throw new Error(`command ${i} of a batch was not executed`);
      index.restore(sent.command.identity.actorId, sent.command.commandId, sent.fingerprint, { owner: PARTITION, position: response.position });
    });
  };
  const creator = buildIdentity({ principalId: "creator", actorId: "creator" });
  const sent = (command: Command): ShardRequest => commandRequest(command, `fp-${command.commandId}`);
  for (let m = 0; m < MARKETS; m += 1) {
    const mechanism = { presetId: "direct-claim.v1", config: { capacity: BEFORE + AFTER, pricing: { mode: "free" }, confirmation: "none" } };
    await execute([
      sent(buildCommand("market.create_draft", { marketId: `m${m}`, subject: { schema: "slot.v1", data: { dock: m } }, mechanism, commandId: `create-${m}`, identity: creator, occurredAtMs: START_MS })),
      sent(buildCommand("market.publish", { marketId: `m${m}`, expectedVersion: 1, commandId: `publish-${m}`, identity: creator, occurredAtMs: START_MS })),
    ]);
  }
  let claimed = 0;
  const claims = async (count: number): Promise<void> => {
    for (let done = 0; done < count; done += BATCH) {
      await execute(Array.from({ length: Math.min(BATCH, count - done) }, () => {
        claimed += 1;
        const participant = buildIdentity({ principalId: `p-${claimed}`, actorId: `p-${claimed}` });
        return sent(buildCommand("direct_claim.submit", { marketId: `m${claimed % MARKETS}`, commandId: `claim-${claimed}`, identity: participant, occurredAtMs: START_MS }));
      }));
    }
  };
  await claims(BEFORE);
  await first.opened.core.snapshot((mark) => indexes.snapshotting(PARTITION, mark));
  await claims(AFTER);
  await first.opened.core.close();
  await first.close();
  await node.close();
}

async function main(): Promise<void> {
  const nats = await NatsCluster.start();
  try {
    await fill(nats.urls);
    const figures = { connectMs: [] as number[], streamOpenMs: [] as number[], beforeRecoveryMs: [] as number[], recoveryMs: [] as number[], natsCpuMs: [] as number[] };
    for (let round = 1; round <= ROUNDS; round += 1) {
      const cpuBefore = cpuSecondsOf(nats.pids());
      const startedMs = performance.now();
      const messaging = await connectMessaging(nats.urls, `${STREAM} epoch ${round + 1}`);
      const connectedMs = performance.now();
      const opened = await openPartitionShard(messaging, { stream: STREAM, epoch: round + 1 }, { shardIndex: PARTITION, clock: new ManualClock(START_MS) });
      const report = opened.opened.report;
      // Everything before recovery proper: the stream's open and the idempotency snapshot's check.
      const beforeRecoveryMs = performance.now() - connectedMs - report.elapsedMs;
      const natsCpuMs = (cpuSecondsOf(nats.pids()) - cpuBefore) * 1000;
      figures.connectMs.push(connectedMs - startedMs);
      if (report.streamOpenMs !== undefined) figures.streamOpenMs.push(report.streamOpenMs);
      figures.beforeRecoveryMs.push(beforeRecoveryMs);
      figures.recoveryMs.push(report.elapsedMs);
      figures.natsCpuMs.push(natsCpuMs);
      console.log(
        `round ${round}: connect ${(connectedMs - startedMs).toFixed(0)} ms, stream open ${report.streamOpenMs ?? "-"} ms, before recovery ${beforeRecoveryMs.toFixed(0)} ms, ` +
          `recovery ${report.elapsedMs} ms (${report.framesReplayed} replayed, ${opened.opened.idempotency.commandIds.length} idempotency entries after the snapshot); NATS CPU ${natsCpuMs.toFixed(0)} ms`,
      );
      await opened.opened.core.close();
      await opened.close();
    }
    const line = (name: string, values: number[]): string => (values.length === 0 ? `${name} -` : `${name} ${median(values).toFixed(0)} (${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)})`);
    const lines = [line("connect", figures.connectMs), line("stream open", figures.streamOpenMs), line("before recovery", figures.beforeRecoveryMs), line("recovery", figures.recoveryMs), line("NATS CPU", figures.natsCpuMs)];
    console.log(`medians over ${ROUNDS} rounds, ms: ${lines.join("; ")}`);
  } finally {
    await nats.stop();
  }
}

await main();
