import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { SnapshotStore, SnapshotWriteError, snapshotFileName } from "../../storage/index.js";
import { flipByte, fsWith, payloadFor, tempDir } from "./helpers.js";

const chainFor = (seed: number): Buffer => Buffer.alloc(32, seed);

describe("SnapshotStore", () => {
  it("writes atomically and loads the newest", async () => {
    const dir = path.join(tempDir("snap"), "snapshots");
    const store = new SnapshotStore({ dir });
    expect(store.loadNewestValid()).toEqual({ snapshot: null, invalid: [] });
    const written = await store.write({ lsn: 10, chainHead: chainFor(1), payloadParts: [payloadFor(1, 500)] });
    expect(path.basename(written.filePath)).toBe("snapshot-00000000000000000010.snap");
    expect(written.sizeBytes).toBe(64 + 500);
    await store.write({ lsn: 250, chainHead: chainFor(2), payloadParts: [payloadFor(2, 0)] });
    await store.write({ lsn: 99, chainHead: chainFor(3), payloadParts: [payloadFor(3, 7)] });
    expect(fs.readdirSync(dir).filter((n) => n.endsWith(".tmp"))).toEqual([]);

    const { snapshot, invalid } = store.loadNewestValid();
    expect(invalid).toEqual([]);
    expect(snapshot?.lsn).toBe(250);
    expect(snapshot?.chainHead).toEqual(chainFor(2));
    expect(snapshot?.payload.length).toBe(0);
    expect(store.list().map((e) => e.lsn)).toEqual([250, 99, 10]);

    // Layout: magic, version, crc over [16, end), lsn, payload length, chain head, payload.
    const bytes = fs.readFileSync(path.join(dir, snapshotFileName(99)));
    expect(bytes.subarray(0, 8).toString("latin1")).toBe("SNAPSHT\n");
    expect(bytes.readUInt32LE(8)).toBe(1);
    expect(bytes.readBigUInt64LE(16)).toBe(99n);
    expect(bytes.readBigUInt64LE(24)).toBe(7n);
    expect(bytes.subarray(32, 64)).toEqual(chainFor(3));
    expect(bytes.subarray(64)).toEqual(payloadFor(3, 7));
  });

  it("falls back to an older snapshot when the newest is corrupt, and reports why", async () => {
    const dir = tempDir("snap");
    const store = new SnapshotStore({ dir });
    await store.write({ lsn: 1, chainHead: chainFor(1), payloadParts: [payloadFor(1, 100)] });
    await store.write({ lsn: 2, chainHead: chainFor(2), payloadParts: [payloadFor(2, 100)] });
    const newest = await store.write({ lsn: 3, chainHead: chainFor(3), payloadParts: [payloadFor(3, 100)] });
    flipByte(newest.filePath, 64 + 50);

    let result = store.loadNewestValid();
    expect(result.snapshot?.lsn).toBe(2);
    expect(result.snapshot?.payload).toEqual(payloadFor(2, 100));
    expect(result.invalid).toEqual([{ filePath: newest.filePath, reason: "crc32c mismatch" }]);

    // Truncated file, renamed file (lsn mismatch), garbage file: all skipped.
    const second = path.join(dir, snapshotFileName(2));
    fs.truncateSync(second, 100);
    fs.copyFileSync(path.join(dir, snapshotFileName(1)), path.join(dir, snapshotFileName(5)));
    fs.writeFileSync(path.join(dir, snapshotFileName(4)), Buffer.alloc(10));
    result = store.loadNewestValid();
    expect(result.snapshot?.lsn).toBe(1);
    expect(result.invalid.map((i) => [path.basename(i.filePath), i.reason])).toEqual([
      [snapshotFileName(5), "header lsn 1 does not match file name lsn 5"],
      [snapshotFileName(4), "file of 10 bytes is shorter than the header"],
      [snapshotFileName(3), "crc32c mismatch"],
      [snapshotFileName(2), "crc32c mismatch"],
    ]);

    flipByte(path.join(dir, snapshotFileName(1)), 20);
    expect(store.loadNewestValid().snapshot).toBeNull(); // no valid snapshot: replay the whole log
  });

  it("prune keeps the newest `keep` valid snapshots and deletes older ones and temp files", async () => {
    const dir = tempDir("snap");
    const store = new SnapshotStore({ dir });
    for (const lsn of [5, 10, 15, 20, 25]) await store.write({ lsn, chainHead: chainFor(lsn), payloadParts: [payloadFor(lsn, 30)] });
    fs.writeFileSync(path.join(dir, snapshotFileName(30) + ".tmp"), "partial");
    flipByte(path.join(dir, snapshotFileName(25)), 70); // newest is corrupt

    // A store that did not write them (the next start's) reads each one it keeps.
    const restarted = new SnapshotStore({ dir });
    const { deleted } = await restarted.prune(2);
    expect(deleted.map((p) => path.basename(p)).sort()).toEqual([
      snapshotFileName(10), snapshotFileName(30) + ".tmp", snapshotFileName(5),
    ].sort());
    // The corrupt newer file stays for inspection; two valid ones remain.
    expect(restarted.list().map((e) => e.lsn)).toEqual([25, 20, 15]);
    expect(restarted.loadNewestValid().snapshot?.lsn).toBe(20);
    expect((await restarted.prune()).deleted).toEqual([]);
    expect((await restarted.prune(1)).deleted.map((p) => path.basename(p))).toEqual([snapshotFileName(15)]);
    await expect(restarted.prune(0)).rejects.toThrow(RangeError);
  });

  it("prune does not read back the snapshots the store wrote or loaded", async () => {
    const dir = tempDir("snap");
    let opened = 0;
    const counting = fsWith({
      openSync: (filePath, flags) => {
        if (flags === "r" && path.basename(filePath).endsWith(".snap")) opened += 1;
        return fs.openSync(filePath, flags);
      },
    });
    const writer = new SnapshotStore({ dir, fs: counting });
    for (const lsn of [5, 10, 15]) await writer.write({ lsn, chainHead: chainFor(lsn), payloadParts: [payloadFor(lsn, 30)] });
    expect((await writer.prune(2)).deleted.map((p) => path.basename(p))).toEqual([snapshotFileName(5)]);
    expect(opened).toBe(0);
    // After a restart: the snapshot loaded is known; the older one kept is read once, then known.
    const next = new SnapshotStore({ dir, fs: counting });
    expect(next.loadNewestValid().snapshot?.lsn).toBe(15);
    expect(opened).toBe(1);
    await next.write({ lsn: 20, chainHead: chainFor(20), payloadParts: [payloadFor(20, 30)] });
    expect((await next.prune(3)).deleted).toEqual([]);
    expect(opened).toBe(2);
    expect((await next.prune(3)).deleted).toEqual([]);
    expect(opened).toBe(2);
  });

  it("a failed write leaves no snapshot under a final name", async () => {
    const dir = tempDir("snap");
    let failFsync = false;
    const store = new SnapshotStore({
      dir,
      fs: fsWith({
        fsync: async (fd) => {
          if (failFsync) throw new Error("EIO: fsync");
          fs.fsyncSync(fd);
        },
      }),
    });
    failFsync = true;
    await expect(store.write({ lsn: 1, chainHead: chainFor(1), payloadParts: [payloadFor(1, 10)] })).rejects.toThrow(SnapshotWriteError);
    expect(store.list()).toEqual([]);
    expect(store.loadNewestValid().snapshot).toBeNull();
    failFsync = false;
    await store.write({ lsn: 1, chainHead: chainFor(1), payloadParts: [payloadFor(1, 10)] });
    expect(store.loadNewestValid().snapshot?.lsn).toBe(1);
  });

  it("writes a payload given in parts, over several slices, as the very bytes of their concatenation", async () => {
    const dir = tempDir("snap");
    // A part larger than several of write's slices, between parts that put it off a slice boundary.
    const large = Buffer.alloc(2.5 * 1024 * 1024);
    for (let i = 0; i < large.length; i += 4096) large[i] = i % 251;
    const parts = [Buffer.from("first part;"), Buffer.alloc(0), large, Buffer.from("last")];
    const chainHead = Buffer.alloc(32, 3);
    const store = new SnapshotStore({ dir });
    const written = await store.write({ lsn: 42, chainHead, payloadParts: parts });
    const payload = Buffer.concat(parts);
    expect(written.sizeBytes).toBe(64 + payload.length);
    const bytes = fs.readFileSync(written.filePath);
    expect(bytes.subarray(64).equals(payload)).toBe(true);
    expect(bytes.readBigUInt64LE(24)).toBe(BigInt(payload.length));
    // A store that did not write it checks its CRC on load.
    const loaded = new SnapshotStore({ dir }).loadNewestValid();
    expect(loaded.invalid).toEqual([]);
    expect(loaded.snapshot?.lsn).toBe(42);
    expect(loaded.snapshot?.payload.equals(payload)).toBe(true);
    expect(fs.readdirSync(dir)).toEqual([snapshotFileName(42)]);
  });

  it("validates its inputs", async () => {
    const store = new SnapshotStore({ dir: tempDir("snap"), maxPayloadBytes: 10 });
    await expect(store.write({ lsn: -1, chainHead: chainFor(1), payloadParts: [Buffer.alloc(1)] })).rejects.toThrow(RangeError);
    await expect(store.write({ lsn: 1, chainHead: Buffer.alloc(31), payloadParts: [Buffer.alloc(1)] })).rejects.toThrow(RangeError);
    await expect(store.write({ lsn: 1, chainHead: chainFor(1), payloadParts: [Buffer.alloc(6), Buffer.alloc(5)] })).rejects.toThrow(RangeError);
  });
});
