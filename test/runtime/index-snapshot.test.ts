/**
 * The idempotency-index checkpoint (engine/idempotency/index-snapshot.ts): the settled table's
 * image, written off the thread and read back whole; entries finished meanwhile do not break it;
 * the older formats (v1 single value, v2 MessagePack chunks) are still read.
 */
import { Packr } from "msgpackr";
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { IdempotencyIndex } from "../../engine/idempotency/index.js";
import { IndexSnapshotWriter, indexSnapshotStore, loadIndexSnapshot, openIndexSnapshot, peekIndexWatermarks, writeIndexSnapshot } from "../../engine/idempotency/index-snapshot.js";
import { SnapshotStore } from "../../storage/index.js";
import { SNAPSHOT_HEADER_BYTES } from "../../storage/snapshot-store.js";

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

/** Entries [from, to) of a deterministic run: some actors' ids wider than a byte. */
function addEntries(index: IdempotencyIndex, from: number, to: number): void {
  for (let n = from; n < to; n += 1) index.restore(n % 5 === 0 ? `参加者-${n % 11}` : `actor-${n % 97}`, `command-${n}`, fingerprint(n), { owner: n % 3, position: n * 10 });
}

/** Whether every entry in [from, to) replays at its location, and the entry `to` is not there. */
function holdsExactly(index: IdempotencyIndex, from: number, to: number): boolean {
  const actor = (n: number): string => (n % 5 === 0 ? `参加者-${n % 11}` : `actor-${n % 97}`);
  for (let n = from; n < to; n += 1) {
    const claim = index.claim(actor(n), `command-${n}`, fingerprint(n));
    if (claim.kind !== "replay" || claim.location.owner !== n % 3 || claim.location.position !== n * 10) return false;
  }
  return index.size === to - from;
}

/** One writer's snapshots of one index: at each step, the entries up to the step's count added, then a snapshot with its watermarks. */
async function writeSteps(dir: string, steps: ReadonlyArray<readonly [number, number[]]>): Promise<void> {
  const writer = new IndexSnapshotWriter(indexSnapshotStore(dir));
  const index = new IdempotencyIndex();
  for (const [to, watermarks] of steps) {
    addEntries(index, index.size, to);
    await writer.write(index, watermarks);
  }
}

/** The index snapshot files of `dir`, oldest first, with their sizes. */
function snapshotFiles(dir: string): Array<{ name: string; sizeBytes: number }> {
  const indexDir = path.join(dir, "idempotency");
  return readdirSync(indexDir)
    .filter((name) => name.endsWith(".snap"))
    .sort()
    .map((name) => ({ name, sizeBytes: statSync(path.join(indexDir, name)).size }));
}

/** The version in a snapshot file's header (3: a full image, 4: a continuation). */
function versionOf(dir: string, name: string): number {
  const payload = readFileSync(path.join(dir, "idempotency", name)).subarray(SNAPSHOT_HEADER_BYTES);
  let version = 0;
  new Packr({ useRecords: false }).unpackMultiple(payload, (header: unknown) => {
    version = (header as { v: number }).v;
    return false;
  });
  return version;
}

function damage(dir: string, name: string): void {
  const file = path.join(dir, "idempotency", name);
  const bytes = readFileSync(file);
  bytes[bytes.length - 1] = (bytes[bytes.length - 1] as number) ^ 0xff;
  writeFileSync(file, bytes);
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

  it("writes only what was added since the last snapshot (a continuation), and a load applies the chain", async () => {
    const dir = dataDir();
    await writeSteps(dir, [
      [60_000, [10, 20]],
      [70_000, [30, 40]],
      [75_000, [50, 60]],
    ]);
    const files = snapshotFiles(dir);
    expect(files).toHaveLength(3);
    const [full, second, third] = files.map((file) => file.sizeBytes) as [number, number, number];
    // About a sixth and a twelfth of the whole image: what was added, not the index again.
    expect(second).toBeLessThan(full / 4);
    expect(third).toBeLessThan(second);

    const opened = openIndexSnapshot(indexSnapshotStore(dir), 2);
    expect(opened.watermarks).toEqual([50, 60]);
    expect(peekIndexWatermarks(indexSnapshotStore(dir), 2)).toEqual([50, 60]);
    const back = new IdempotencyIndex();
    opened.restoreInto(back);
    expect(holdsExactly(back, 0, 75_000)).toBe(true);
    expect(back.claim("actor-1", "command-1", "another").kind).toBe("conflict");
  });

  it("writes a full image again once the continuations add up to the last one, and then deletes the chain before the previous", async () => {
    const dir = dataDir();
    const writer = new IndexSnapshotWriter(indexSnapshotStore(dir));
    const index = new IdempotencyIndex();
    let entries = 0;
    const kinds: number[] = [];
    // Each step adds a tenth of what the index holds: a full image, continuations, a full image, ….
    for (let step = 1; step <= 30; step += 1) {
      const to = entries === 0 ? 20_000 : entries + Math.ceil(entries / 10);
      addEntries(index, entries, to);
      entries = to;
      await writer.write(index, [step, 0]);
      kinds.push(versionOf(dir, (snapshotFiles(dir).at(-1) as { name: string }).name));
      const back = new IdempotencyIndex();
      expect(loadIndexSnapshot(indexSnapshotStore(dir), 2, back)).toEqual([step, 0]);
      expect(back.size).toBe(entries);
    }
    // A full image (v3), then continuations (v4) until they add up to it: about seven at a tenth each.
    expect(kinds.slice(0, 8)).toEqual([3, 4, 4, 4, 4, 4, 4, 4]);
    const fulls = kinds.flatMap((kind, i) => (kind === 3 ? [i + 1] : []));
    expect(fulls.length).toBeGreaterThanOrEqual(3);
    // Kept: the newest chain and the one before it (the fallback), nothing older.
    const kept = snapshotFiles(dir).map((file) => Number(/snapshot-0*(\d+)\.snap/.exec(file.name)?.[1]));
    expect(kept[0]).toBe(fulls.at(-2));
    expect(kept.at(-1)).toBe(30);
    const back = new IdempotencyIndex();
    loadIndexSnapshot(indexSnapshotStore(dir), 2, back);
    expect(holdsExactly(back, 0, entries)).toBe(true);
  });

  it("keeps at most the chain a process started from and its own across restarts", async () => {
    const dir = dataDir();
    let entries = 0;
    let watermark = 0;
    for (let process = 0; process < 5; process += 1) {
      const opened = openIndexSnapshot(indexSnapshotStore(dir), 2);
      const index = new IdempotencyIndex();
      opened.restoreInto(index);
      expect(holdsExactly(index, 0, entries)).toBe(true);
      const writer = new IndexSnapshotWriter(indexSnapshotStore(dir), opened.fullLsn);
      if (process === 0) {
        addEntries(index, 0, 20_000);
        entries = 20_000;
      }
      for (let checkpoint = 0; checkpoint < 3; checkpoint += 1) {
        addEntries(index, entries, entries + 2_000);
        entries += 2_000;
        watermark += 1;
        await writer.write(index, [watermark, 0]);
      }
      const versions = snapshotFiles(dir).map((file) => versionOf(dir, file.name));
      // This process's chain (a full image and two continuations) and, after the first, the one it started from.
      expect(versions).toEqual(process === 0 ? [3, 4, 4] : [3, 4, 4, 3, 4, 4]);
    }
  });

  it("writes a full image after an empty one, never a continuation of it", async () => {
    const dir = dataDir();
    await writeSteps(dir, [
      [0, [1, 0]],
      [0, [2, 0]],
      [1_000, [3, 0]],
      [1_100, [4, 0]],
    ]);
    // The second full image deleted nothing (the first was the one before it); the third deleted the first.
    expect(snapshotFiles(dir).map((file) => versionOf(dir, file.name))).toEqual([3, 3, 4]);
    const back = new IdempotencyIndex();
    expect(loadIndexSnapshot(indexSnapshotStore(dir), 2, back)).toEqual([4, 0]);
    expect(holdsExactly(back, 0, 1_100)).toBe(true);
  });

  it("falls back to the newest snapshot whose whole chain is valid", async () => {
    const dir = dataDir();
    await writeSteps(dir, [
      [30_000, [1, 1]],
      [33_000, [2, 2]],
      [36_000, [3, 3]],
    ]);
    const [full, middle, newest] = snapshotFiles(dir).map((file) => file.name) as [string, string, string];

    damage(dir, newest);
    const withoutNewest = new IdempotencyIndex();
    expect(loadIndexSnapshot(indexSnapshotStore(dir), 2, withoutNewest)).toEqual([2, 2]);
    expect(holdsExactly(withoutNewest, 0, 33_000)).toBe(true);

    damage(dir, newest); // whole again
    damage(dir, middle); // the newest continues a damaged link: the full image before both decides
    const fullOnly = new IdempotencyIndex();
    expect(loadIndexSnapshot(indexSnapshotStore(dir), 2, fullOnly)).toEqual([1, 1]);
    expect(holdsExactly(fullOnly, 0, 30_000)).toBe(true);

    damage(dir, full);
    expect(loadIndexSnapshot(indexSnapshotStore(dir), 2, new IdempotencyIndex())).toEqual([0, 0]);
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
