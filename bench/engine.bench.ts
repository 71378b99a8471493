/**
 * Engine micro-benchmarks (tinybench). Run: `npm run bench:engine`.
 *
 *  - decide+evolve of one direct claim in a large open market (handleCommand, the shard's hot call)
 *  - replay: commands/s through the engine from an in-memory command list
 *  - record: build + canonical-hash a 10,000-command market record; hashing alone
 */
import { Bench } from "tinybench";
import {
  applyCommand,
  buildCommand,
  buildIdentity,
  buildMarketRecord,
  canonicalHash,
  handleCommand,
  replayMarket,
  type Command,
  type MarketAggregate,
} from "../engine/index.js";
import { tableStorage } from "../engine/store/market-storage.js";

const T0 = Date.parse("2026-03-01T12:00:00.000Z");
const SUBJECT = { schema: "table-booking.v1", data: { venue: "Harbour", seats: 4 } };

function marketCommands(marketId: string, capacity: number): Command[] {
  const identity = buildIdentity({ principalId: "creator", actorId: "creator" });
  return [
    buildCommand("market.create_draft", {
      marketId,
      subject: SUBJECT,
      mechanism: { presetId: "direct-claim.v1", config: { capacity, pricing: { mode: "free" }, confirmation: "none" } },
      commandId: "create",
      identity,
      occurredAtMs: T0,
    }),
    buildCommand("market.publish", { marketId, expectedVersion: 1, commandId: "publish", identity, occurredAtMs: T0 + 1 }),
  ];
}

function claim(marketId: string, n: number): Command {
  return buildCommand("direct_claim.submit", { marketId, commandId: `claim-${n}`, identity: buildIdentity({ principalId: `p-${n}`, actorId: `p-${n}` }), occurredAtMs: T0 + 2 + n });
}

function openMarket(marketId: string, capacity: number): MarketAggregate {
  let agg: MarketAggregate | undefined;
  for (const command of marketCommands(marketId, capacity)) agg = handleCommand(agg, command, tableStorage).aggregate;
  if (agg === undefined) throw new Error("setup failed");
  return agg;
}

// A 10k-command record: 9,000 accepted claims and 998 refused once capacity is exhausted.
const RECORD_COMMANDS: Command[] = [...marketCommands("record-market", 9_000)];
for (let n = 0; n < 9_998; n += 1) RECORD_COMMANDS.push(claim("record-market", n));
const RECORD = buildMarketRecord(RECORD_COMMANDS);
const { integrity: _integrity, ...RECORD_VIEW } = RECORD;

let hot = openMarket("hot", 4_000_000_000);
let claimNumber = 0;

const bench = new Bench({ time: 2_000, warmup: true });
bench
  .add("handleCommand: direct claim (decide + evolve + reply)", () => {
    claimNumber += 1;
    const outcome = handleCommand(hot, claim("hot", claimNumber), tableStorage);
    if (outcome.status !== "accepted") throw new Error("claim refused");
    hot = outcome.aggregate as MarketAggregate;
  })
  .add("applyCommand: 10,000 commands (recovery replay, no replies)", () => {
    let agg: MarketAggregate | undefined;
    for (const command of RECORD_COMMANDS) agg = applyCommand(agg, command, tableStorage).aggregate;
  })
  .add("replayMarket: 10,000 commands (record rendering)", () => {
    replayMarket(RECORD_COMMANDS);
  })
  .add("buildMarketRecord: 10,000 commands (replay + fold + hash)", () => {
    buildMarketRecord(RECORD_COMMANDS);
  })
  .add("canonicalHash: 10,000-command record view", () => {
    canonicalHash(RECORD_VIEW);
  });

await bench.run();
console.log(`record: ${RECORD.commands.length} commands, ${RECORD.events.length} events, ${JSON.stringify(RECORD).length} JSON bytes`);
console.table(
  bench.tasks.map((task) => {
    const result = task.result as { throughput?: { mean: number }; latency?: { mean: number; p99?: number } } | undefined;
    return {
      task: task.name,
      "ops/s": Math.round(result?.throughput?.mean ?? 0).toLocaleString("en-US"),
      "mean ms": (result?.latency?.mean ?? 0).toFixed(4),
      "p99 ms": (result?.latency?.p99 ?? 0).toFixed(4),
    };
  }),
);
for (const prefix of ["applyCommand", "replayMarket"]) {
  const task = bench.tasks.find((t) => t.name.startsWith(prefix));
  const opsPerSecond = (task?.result as { throughput?: { mean: number } } | undefined)?.throughput?.mean ?? 0;
  console.log(`${prefix}: ${Math.round(opsPerSecond * RECORD_COMMANDS.length).toLocaleString("en-US")} commands/s (one thread)`);
}
