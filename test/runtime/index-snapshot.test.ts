/**
 * The idempotency-index checkpoint (engine/idempotency/index-snapshot.ts): the settled table's
 * image, written off the thread and read back whole; entries finished meanwhile do not break it;
 * the older formats (v1 single value, v2 MessagePack chunks) are still read.
 */
import { Packr } from "msgpackr";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { IdempotencyIndex } from "../../engine/idempotency/index.js";
import { indexSnapshotStore, loadIndexSnapshot, openIndexSnapshot, peekIndexWatermarks, writeIndexSnapshot } from "../../engine/idempotency/index-snapshot.js";
import { SnapshotStore } from "../../storage/index.js";

const dirs: string[] = [];
function dataDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "index-snapshot-"));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function fingerprint(n: number): string {
  return `fp-${n.toString(36)}`;
}

describe("idempotency index snapshot", () => {
  it("round-trips more entries than one page, and skips identity-owned entries", async () => {
    const dir = dataDir();
    const index = new IdempotencyIndex();
    const count = 40_000; // three entry pages of 16,384
    for (let n = 0; n < count; n += 1) index.restore(`actor-${n % 97}`, `command-${n}`, fingerprint(n), { owner: n % 3, position: n * 10 });
    index.restore("operator", "provision-1", "fp-identity", { owner: "identity", position: 5 });
    await writeIndexSnapshot(indexSnapshotStore(dir), index, [11, 22, 33]);

    const back = new IdempotencyIndex();
    expect(loadIndexSnapshot(indexSnapshotStore(dir), 3, back)).toEqual([11, 22, 33]);
    expect(back.size).toBe(count);
    for (const n of [0, 16_383, 16_384, 39_999]) {
      expect(back.claim(`actor-${n % 97}`, `command-${n}`, fingerprint(n))).toEqual({ kind: "replay", location: { owner: n % 3, position: n * 10 } });
      expect(back.claim(`actor-${n % 97}`, `command-${n}`, "other").kind).toBe("conflict");
    }
    expect(back.claim("operator", "provision-1", "fp-identity").kind).toBe("fresh");
  });

  it("restores into an index that already holds the identity store's entries", async () => {
    const dir = dataDir();
    const index = new IdempotencyIndex({ seed: 11 });
    for (let n = 0; n < 1000; n += 1) index.restore(`actor-${n % 7}`, `command-${n}`, fingerprint(n), { owner: n % 2, position: n });
    await writeIndexSnapshot(indexSnapshotStore(dir), index, [1, 2]);
    const back = new IdempotencyIndex({ seed: 12 });
    back.restore("operator", "provision-1", "fp-identity", { owner: "identity", position: 5 });
    loadIndexSnapshot(indexSnapshotStore(dir), 2, back);
    expect(back.size).toBe(1001);
    expect(back.claim("operator", "provision-1", "fp-identity")).toEqual({ kind: "replay", location: { owner: "identity", position: 5 } });
    expect(back.claim("actor-5", "command-999", fingerprint(999))).toEqual({ kind: "replay", location: { owner: 1, position: 999 } });
  });

  it("opens with the watermarks first and decodes the entries only when asked (start-up overlaps shard recovery)", async () => {
    const dir = dataDir();
    expect(openIndexSnapshot(indexSnapshotStore(dir), 2).watermarks).toEqual([0, 0]); // no snapshot yet
    expect(peekIndexWatermarks(indexSnapshotStore(dir), 2)).toBeUndefined();
    const index = new IdempotencyIndex();
    for (let n = 0; n < 20_000; n += 1) index.restore(`actor-${n % 13}`, `command-${n}`, fingerprint(n), { owner: n % 2, position: n });
    await writeIndexSnapshot(indexSnapshotStore(dir), index, [7, 9]);

    const opened = openIndexSnapshot(indexSnapshotStore(dir), 2);
    expect(opened.watermarks).toEqual([7, 9]);
    // The same watermarks from the file's first bytes, before it is read whole (a hint the
    // runtime starts the shards with; another shard count gives none).
    expect(peekIndexWatermarks(indexSnapshotStore(dir), 2)).toEqual([7, 9]);
    expect(peekIndexWatermarks(indexSnapshotStore(dir), 3)).toBeUndefined();
    const back = new IdempotencyIndex();
    expect(back.size).toBe(0);
    opened.restoreInto(back);
    expect(back.size).toBe(20_000);
    expect(back.claim("actor-5", "command-19999", fingerprint(19_999))).toEqual({ kind: "replay", location: { owner: 1, position: 19_999 } });
    expect(() => openIndexSnapshot(indexSnapshotStore(dir), 3)).toThrow(/SHARDS=3/);
  });

  it("keeps serving while the file is written; entries finished meanwhile are left to the shard logs", async () => {
    const dir = dataDir();
    const index = new IdempotencyIndex();
    for (let n = 0; n < 50_000; n += 1) index.restore("a", `c-${n}`, fingerprint(n), { owner: 0, position: n });
    let turns = 0;
    const ticker = setInterval(() => {
      turns += 1;
      const claim = index.claim("late", `c-${turns}`, "late-fp");
      if (claim.kind === "fresh") claim.complete({ owner: 1, position: turns });
    }, 0);
    await writeIndexSnapshot(indexSnapshotStore(dir), index, [1, 2]);
    clearInterval(ticker);
    expect(turns).toBeGreaterThan(0);
    const back = new IdempotencyIndex();
    loadIndexSnapshot(indexSnapshotStore(dir), 2, back);
    // The snapshot holds the index as it was when the write began: the 50,000 entries, none of the
    // entries completed while it was being written (their shards' logs report them at the next start).
    expect(back.size).toBe(50_000);
    expect(back.claim("a", "c-49999", fingerprint(49_999)).kind).toBe("replay");
    expect(back.claim("late", "c-1", "late-fp").kind).toBe("fresh");
  });

  it("reads a v1 snapshot (one value, actor and command ids in separate columns)", async () => {
    const dir = dataDir();
    const v1 = { v: 1, watermarks: [5, 6], actorIds: ["alice", "bob"], commandIds: ["c1", "c2"], fingerprints: ["f1", "f2"], owners: [0, 1], positions: [100, 200] };
    await new SnapshotStore({ dir: path.join(dir, "idempotency") }).write({ lsn: 11, chainHead: Buffer.alloc(32), payloadParts: [new Packr({ useRecords: false }).pack(v1)] });
    const back = new IdempotencyIndex();
    expect(loadIndexSnapshot(indexSnapshotStore(dir), 2, back)).toEqual([5, 6]);
    expect(back.claim("bob", "c2", "f2")).toEqual({ kind: "replay", location: { owner: 1, position: 200 } });
  });

  it("reads a v2 snapshot (a header, then MessagePack chunks of whole keys)", async () => {
    const dir = dataDir();
    const packr = new Packr({ useRecords: false });
    const payload = Buffer.concat([
      packr.pack({ v: 2, watermarks: [3, 4] }),
      packr.pack({ keys: ["alice\u0000c1", "bob\u0000c2"], fingerprints: ["f1", "f2"], owners: [0, 1], positions: [100, 200] }),
      packr.pack({ keys: ["carol\u0000c3"], fingerprints: ["f3"], owners: [1], positions: [300] }),
    ]);
    await new SnapshotStore({ dir: path.join(dir, "idempotency") }).write({ lsn: 7, chainHead: Buffer.alloc(32), payloadParts: [payload] });
    const back = new IdempotencyIndex();
    expect(loadIndexSnapshot(indexSnapshotStore(dir), 2, back)).toEqual([3, 4]);
    expect(back.size).toBe(3);
    expect(back.claim("bob", "c2", "f2")).toEqual({ kind: "replay", location: { owner: 1, position: 200 } });
    expect(back.claim("carol", "c3", "f3")).toEqual({ kind: "replay", location: { owner: 1, position: 300 } });
    expect(back.claim("alice", "c1", "f9").kind).toBe("conflict");
  });

  it("refuses a snapshot made for another shard count", async () => {
    const dir = dataDir();
    const index = new IdempotencyIndex();
    index.restore("a", "c", "f", { owner: 0, position: 1 });
    await writeIndexSnapshot(indexSnapshotStore(dir), index, [1, 2]);
    expect(() => loadIndexSnapshot(indexSnapshotStore(dir), 3, new IdempotencyIndex())).toThrow(/SHARDS=3/);
  });
});
