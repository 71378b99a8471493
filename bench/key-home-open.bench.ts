/**
 * `npm run bench:key-home-open`: how long a new owner of a key home takes to open its bindings (the
 * `keyBindingsOpenMs` of its takeover; engine/cluster/key-bindings.ts) after `--bindings` keys were
 * bound there, with and without a snapshot of them taken just before, on a real 3-node nats-server
 * cluster on this machine (scripts/nats-cluster.ts).
 *
 *   npm run bench:key-home-open -- [--bindings 200000] [--per-append 1000] [--tail 1000] [--rounds 3]
 *
 * Each home is filled once (`--per-append` keys per group commit, as a busy home gathers them); the
 * snapshotted home then binds `--tail` more after its snapshot. Each round opens both homes anew at
 * the next epoch, as a takeover does, alternating which goes first. Needs scripts/fetch-nats-server.sh.
 * Prints the opens' times and the CPU the NATS servers spent on them; writes nothing.
 */
import type { NatsConnection } from "@nats-io/transport-node";
import { connectForJournals } from "../engine/messaging/nats/connect.js";
import { NatsMessaging } from "../engine/messaging/nats/nats-messaging.js";
import { KeyBindings } from "../engine/cluster/key-bindings.js";
import { IdempotencyIndex } from "../engine/idempotency/index.js";
import { NatsCluster } from "../scripts/nats-cluster.js";
import { numberArg } from "./args.js";
import { cpuSecondsOf } from "./storm/processes.js";

const BINDINGS = numberArg("bindings", 200_000);
const PER_APPEND = numberArg("per-append", 1_000);
const TAIL = numberArg("tail", 1_000);
const ROUNDS = numberArg("rounds", 3);

/** A home without snapshots, and one with a snapshot of all but its last `TAIL` bindings. */
const HOMES = [
  { partition: 0, label: "no snapshot" },
  { partition: 1, label: "snapshot" },
] as const;

/** The commands executed in the home partition itself: none here. */
const executed = new IdempotencyIndex();

function keyBindings(messaging: NatsMessaging): KeyBindings {
  return new KeyBindings(messaging, () => executed, {
    failed: (partition, error) => {
      throw new Error(`key home ${partition} failed: ${String(error)}`);
    },
    snapshotFailed: (partition, error) => {
      throw new Error(`snapshot of key home ${partition} failed: ${String(error)}`);
    },
  });
}

/** Binds keys `from` … `to - 1` at `partition`, `PER_APPEND` staged per turn (one append each). */
async function fill(bindings: KeyBindings, partition: number, from: number, to: number): Promise<void> {
  for (let first = from; first < to; first += PER_APPEND) {
    const count = Math.min(PER_APPEND, to - first);
    const verdicts = await Promise.all(Array.from({ length: count }, (_, i) => bindings.bind(partition, `actor-${(first + i) % 997}`, `command-${first + i}`, `fingerprint-${first + i}`, 2)));
    if (verdicts.some((verdict) => verdict !== "bound")) throw new Error("a fresh key was not bound");
  }
}

async function main(): Promise<void> {
  const nats = await NatsCluster.start();
  let connection: NatsConnection | undefined;
  try {
    connection = await connectForJournals(nats.urls);
    const messaging = new NatsMessaging(connection);
    const writer = keyBindings(messaging);
    for (const home of HOMES) {
      const startedMs = performance.now();
      await writer.open(home.partition, 1);
      const snapshotted = home.label === "snapshot";
      await fill(writer, home.partition, 0, snapshotted ? BINDINGS - TAIL : BINDINGS);
      if (snapshotted) {
        writer.snapshotAll();
        await fill(writer, home.partition, BINDINGS - TAIL, BINDINGS);
      }
      await writer.close(home.partition); // waits for the snapshot
      console.log(`${home.label}: ${BINDINGS.toLocaleString("en-US")} bindings written in ${((performance.now() - startedMs) / 1000).toFixed(1)} s`);
    }
    const pids = nats.pids();
    for (let round = 1; round <= ROUNDS; round += 1) {
      const order = round % 2 === 1 ? HOMES : [...HOMES].reverse();
      for (const home of order) {
        const reader = keyBindings(messaging);
        const cpuBefore = cpuSecondsOf(pids);
        const startedMs = performance.now();
        const opened = await reader.open(home.partition, round + 1);
        const openMs = performance.now() - startedMs;
        const natsCpuMs = (cpuSecondsOf(pids) - cpuBefore) * 1000;
        if (opened.bindings !== BINDINGS) throw new Error(`${home.label}: opened with ${opened.bindings} bindings, not ${BINDINGS}`);
        console.log(`round ${round} ${home.label}: open ${openMs.toFixed(0)} ms (${opened.fromSnapshot.toLocaleString("en-US")} from the snapshot, ${(opened.bindings - opened.fromSnapshot).toLocaleString("en-US")} read from the stream); NATS CPU ${natsCpuMs.toFixed(0)} ms`);
        await reader.close(home.partition);
      }
    }
  } finally {
    await connection?.close();
    await nats.stop();
  }
}

await main();
