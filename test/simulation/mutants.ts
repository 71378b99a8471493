/**
 * Known bugs put back into a throwaway copy of the code, to show the simulation finds each within
 * the CI's budget of seeds (test/simulation/mutants.test.ts; docs/simulation.md "Teeth"). The copy holds
 * engine/, gateway/, storage/ and test/simulation/ with one file changed; main's code is never touched.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";

export interface Mutant {
  readonly name: string;
  /** What the bug is, in a sentence. */
  readonly bug: string;
  /** The changes that put it back: in each file, the exact code replaced and what replaces it. */
  readonly changes: readonly MutantChange[];
}

export interface MutantChange {
  readonly file: string;
  readonly from: string;
  readonly to: string;
}

export const MUTANTS: readonly Mutant[] = [
  {
    name: "served-before-restored",
    bug: "a new owner serves a partition as soon as its shard is open, before it read the key bindings and restored the partition's idempotency entries (deciding its commands meanwhile on the node's index, the one index it had before decision I58), and a key home not open yet answers that no key is bound there (the double execution seen under load, fixed in bd16326)",
    changes: [
      {
        file: "engine/cluster/cluster-runtime.ts",
        from: "    if (!this.recovered.has(partition)) return undefined;\n    const epoch = this.host.epochOf(partition);\n",
        to: "    const epoch = this.host.epochOf(partition);\n",
      },
      {
        file: "engine/cluster/cluster-runtime.ts",
        from: "    const index = this.indexes.get(partition);\n    if (index === undefined) throw new UnavailableError(this.notServedHere(partition));\n",
        to: "    const index = this.indexes.get(partition) ?? this.options.idempotency;\n",
      },
      {
        file: "engine/cluster/key-bindings.ts",
        from: "    return this.served(home).bindings.usedOtherwise(actorId, commandId, fingerprint);",
        to: "    return this.homes.get(home)?.bindings.usedOtherwise(actorId, commandId, fingerprint) ?? false;",
      },
    ],
  },
  {
    name: "entries-snapshot-not-loaded",
    bug: "a new owner reads a partition's stream for idempotency entries only after the newest snapshot of them, but never loads that snapshot into the partition's index (decision I58)",
    changes: [{ file: "engine/cluster/partition-indexes.ts", from: "      opened.restoreInto(index);\n", to: "" }],
  },
  {
    name: "entries-snapshot-before-replies",
    bug: "a partition's shard takes a snapshot by count before it posts the replies of the batch that made it due, so its node snapshots the partition's idempotency entries under that mark without the batch's (decision I58)",
    changes: [
      {
        file: "engine/runtime/shard-loop.ts",
        from: "    const packed = packResponses(answered);\n    this.options.post({ t: \"batch\", items: packed, stats: shard.lastBatch }, [packed.buffer as ArrayBuffer]);\n    if (reads !== undefined) this.answerLater(items, reads);\n    if (this.snapshotDue(shard)) await this.snapshotInBackground(shard);\n",
        to: "    const packed = packResponses(answered);\n    if (this.snapshotDue(shard)) await this.snapshotInBackground(shard);\n    this.options.post({ t: \"batch\", items: packed, stats: shard.lastBatch }, [packed.buffer as ArrayBuffer]);\n    if (reads !== undefined) this.answerLater(items, reads);\n",
      },
    ],
  },
  {
    name: "append-without-expected-sequence",
    bug: "a partition's journal publishes its batches without the expected last sequence, so an owner that was replaced appends after its successor's claim",
    changes: [{ file: "engine/journal/jetstream-journal.ts", from: "{ msgId: batchId, expectedLastSequence: expectedStreamSequence, timeoutMs: timeout }", to: "{ msgId: batchId, timeoutMs: timeout }" }],
  },
  {
    name: "renewed-at-stale-epoch",
    bug: "a lease whose renewal was refused is written again at its old epoch over whatever another node wrote since (the CAS retry takes any current value for its own)",
    changes: [{ file: "engine/cluster/leases.ts", from: "const ours = current !== null && current.node === this.nodeId && current.epoch === lease.epoch;", to: "const ours = current !== null;" }],
  },
];

/** Copies the code under `root` to a new temporary directory with `mutant` applied; returns the copy's root. */
export function mutatedCopy(root: string, mutant: Mutant): string {
  const copy = mkdtempSync(path.join(tmpdir(), `sim-mutant-${mutant.name}-`));
  for (const dir of ["engine", "gateway", "storage", "test/simulation"]) cpSync(path.join(root, dir), path.join(copy, dir), { recursive: true });
  for (const file of ["package.json", "tsconfig.json"]) cpSync(path.join(root, file), path.join(copy, file));
  symlinkSync(path.join(root, "node_modules"), path.join(copy, "node_modules"), "dir");
  for (const change of mutant.changes) {
    const target = path.join(copy, change.file);
    const source = readFileSync(target, "utf8");
    const at = source.indexOf(change.from);
    if (at < 0 || source.indexOf(change.from, at + 1) >= 0) {
      rmSync(copy, { recursive: true, force: true });
      throw new Error(`mutant ${mutant.name}: the code to replace is not found exactly once in ${change.file}; update the mutant with the code`);
    }
    writeFileSync(target, source.slice(0, at) + change.to + source.slice(at + change.from.length));
  }
  return copy;
}
