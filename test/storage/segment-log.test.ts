import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import {
  FRAME_HEADER_BYTES,
  LogClosedError,
  SEGMENT_HEADER_BYTES,
  SegmentLog,
  StorageLimitError,
  genesisChainHash,
  nextChainHash,
} from "../../storage/index.js";
import { fileSize, payloadFor, tempDir } from "./helpers.js";

interface Written {
  lsn: number;
  position: number;
  payload: Buffer;
}

/** Appends `batches` (payload sizes per batch), committing after each batch. */
function writeBatches(log: SegmentLog, batches: number[][], seedBase = 0): Written[] {
  const written: Written[] = [];
  for (const batch of batches) {
    for (const size of batch) {
      const payload = payloadFor(seedBase + written.length, size);
      const { lsn, position } = log.append(payload);
      written.push({ lsn, position, payload });
    }
    log.commitSync();
  }
  return written;
}

function expectedChain(payloads: Buffer[]): Buffer {
  let chain = genesisChainHash();
  for (const payload of payloads) chain = nextChainHash(chain, payload);
  return chain;
}

describe("SegmentLog basics", () => {
  it("creates an empty log with genesis state", () => {
    const dir = tempDir();
    const log = SegmentLog.open({ dir });
    expect(log.lastLsn).toBe(0);
    expect(log.endPosition).toBe(0);
    expect(log.chainHead).toEqual(Buffer.alloc(32));
    expect(log.recovery.createdFirstSegment).toBe(true);
    expect(fs.readdirSync(dir)).toEqual(["00000000000000000000.seg"]);
    expect(fileSize(path.join(dir, "00000000000000000000.seg"))).toBe(SEGMENT_HEADER_BYTES);
    expect([...log.frames()]).toEqual([]);
    log.close();
  });

  it("append stages, commitSync makes durable; lsn and positions are contiguous", () => {
    const dir = tempDir();
    const log = SegmentLog.open({ dir });
    const first = log.append(Buffer.from("a"));
    const second = log.append(Buffer.from("bcd"));
    expect(first).toEqual({ lsn: 1, position: 0 });
    expect(second).toEqual({ lsn: 2, position: FRAME_HEADER_BYTES + 1 });
    // Staged only: nothing durable yet.
    expect(log.lastLsn).toBe(0);
    expect(log.stagedFrames).toBe(2);
    expect(fileSize(log.segmentFiles()[0] as string)).toBe(SEGMENT_HEADER_BYTES);
    const result = log.commitSync();
    expect(result).toEqual({ frames: 2, bytes: 2 * FRAME_HEADER_BYTES + 4, lastLsn: 2, endPosition: 2 * FRAME_HEADER_BYTES + 4 });
    expect(log.stats).toMatchObject({ commits: 1, framesWritten: 2, bytesWritten: 2 * FRAME_HEADER_BYTES + 4 });
    expect(log.commitSync().frames).toBe(0); // empty commit: no I/O
    expect(log.stats.commits).toBe(1);
    expect(log.append(Buffer.alloc(0))).toEqual({ lsn: 3, position: 2 * FRAME_HEADER_BYTES + 4 });
    log.commitSync();
    expect(log.chainHead).toEqual(expectedChain([Buffer.from("a"), Buffer.from("bcd"), Buffer.alloc(0)]));
    log.close();
  });

  it("round-trips through reopen and continues the lsn and chain", () => {
    const dir = tempDir();
    let log = SegmentLog.open({ dir });
    const written = writeBatches(log, [[10, 20], [0], [300, 1, 2, 3]]);
    const head = log.chainHead;
    log.close();

    log = SegmentLog.open({ dir });
    expect(log.recovery.truncation).toBeNull();
    expect(log.lastLsn).toBe(written.length);
    expect(log.chainHead).toEqual(head);
    expect(log.chainHead).toEqual(expectedChain(written.map((w) => w.payload)));
    const read = [...log.frames(0, { copyPayloads: true })];
    expect(read.map((f) => f.lsn)).toEqual(written.map((w) => w.lsn));
    expect(read.map((f) => f.position)).toEqual(written.map((w) => w.position));
    expect(read.map((f) => f.payload)).toEqual(written.map((w) => w.payload));

    const more = writeBatches(log, [[5, 6]], 1000);
    expect(more.map((w) => w.lsn)).toEqual([written.length + 1, written.length + 2]);
    log.close();
    log = SegmentLog.open({ dir, verifyChainOnOpen: true });
    expect(log.lastLsn).toBe(written.length + 2);
    expect(log.chainHead).toEqual(expectedChain([...written, ...more].map((w) => w.payload)));
    expect(log.verify()).toMatchObject({ ok: true, framesVerified: written.length + 2 });
    log.close();
  });

  it("close() drops staged frames; their lsns are reused", () => {
    const dir = tempDir();
    let log = SegmentLog.open({ dir });
    writeBatches(log, [[4]]);
    log.append(Buffer.from("never committed"));
    log.close();
    expect(() => log.append(Buffer.alloc(1))).toThrow(LogClosedError);
    expect(() => log.commitSync()).toThrow(LogClosedError);
    log.close(); // idempotent
    log = SegmentLog.open({ dir });
    expect(log.lastLsn).toBe(1);
    expect(log.append(Buffer.from("x")).lsn).toBe(2);
    log.close();
  });

  it("frames(from) yields only later frames; views vs copies", () => {
    const dir = tempDir();
    const log = SegmentLog.open({ dir, segmentSizeBytes: 200 });
    const written = writeBatches(log, [[8], [8, 8], [8], [8, 8, 8]]);
    for (let from = 0; from <= written.length; from++) {
      const lsns = [...log.frames(from, { verify: "chain" })].map((f) => f.lsn);
      expect(lsns).toEqual(written.filter((w) => w.lsn > from).map((w) => w.lsn));
    }
    expect(() => log.frames(written.length + 1)).toThrow(RangeError); // eager, before iterating
    expect(() => log.frames(-1)).toThrow(RangeError);
    const copies = [...log.frames(0, { copyPayloads: true, verify: "none" })];
    expect(copies.map((f) => f.payload)).toEqual(written.map((w) => w.payload));
    log.close();
  });

  it("frames() iterates the durable log as of the call, even while the writer keeps committing and rotating", () => {
    const dir = tempDir();
    const log = SegmentLog.open({ dir, segmentSizeBytes: 300 });
    writeBatches(log, [[50], [50], [50]]);
    const iterator = log.frames(0, { verify: "chain" });
    const first = iterator.next();
    expect(first.done).toBe(false);
    writeBatches(log, [[50], [50], [50]], 100); // rotates into new segments mid-iteration
    const rest = [...iterator].map((f) => f.lsn);
    expect(rest).toEqual([2, 3]);
    expect([...log.frames()].map((f) => f.lsn)).toEqual([1, 2, 3, 4, 5, 6]);
    log.close();
  });

  it("enforces payload and batch bounds without failing the log", () => {
    const dir = tempDir();
    const log = SegmentLog.open({ dir, maxPayloadBytes: 100, maxBatchBytes: 400 });
    expect(() => log.append(Buffer.alloc(101))).toThrow(StorageLimitError);
    log.append(Buffer.alloc(100)); // 148
    log.append(Buffer.alloc(100)); // 296
    expect(() => log.append(Buffer.alloc(100))).toThrow(StorageLimitError); // would be 444
    log.append(Buffer.alloc(50)); // 394
    expect(log.failed).toBe(false);
    expect(log.commitSync().frames).toBe(3);
    log.append(Buffer.alloc(100));
    log.commitSync();
    expect(log.lastLsn).toBe(4);
    log.close();
    expect(() => SegmentLog.open({ dir, maxPayloadBytes: 100, maxBatchBytes: 100 })).toThrow(RangeError);
    expect(() => SegmentLog.open({ dir, segmentSizeBytes: 10 })).toThrow(RangeError);
    expect(() => SegmentLog.open({ dir, maxPayloadBytes: 16 * 1024 * 1024 + 1 })).toThrow(RangeError);
  });
});

describe("rotation", () => {
  it("rotates before a batch that would overflow, never splits a batch, names segments by base position", () => {
    const dir = tempDir();
    const segmentSizeBytes = SEGMENT_HEADER_BYTES + 3 * 58; // header + room for exactly three 10-byte-payload frames
    let log = SegmentLog.open({ dir, segmentSizeBytes });
    // Batch sizes in frames: 2, 2 (overflows: rotate), 1, 3 (overflows: rotate), 1 (overflows: rotate)
    const written = writeBatches(log, [[10, 10], [10, 10], [10], [10, 10, 10], [10]]);
    const files = log.segmentFiles().map((f) => path.basename(f));
    expect(files).toEqual([
      "00000000000000000000.seg",
      "00000000000000000116.seg",
      "00000000000000000290.seg",
      "00000000000000000464.seg",
    ]);
    expect(log.stats.rotations).toBe(3);
    for (const file of log.segmentFiles()) expect(fileSize(file)).toBeLessThanOrEqual(segmentSizeBytes);
    log.close();

    log = SegmentLog.open({ dir, segmentSizeBytes });
    expect(log.lastLsn).toBe(9);
    expect(log.recovery.segmentsScanned).toBe(4);
    // readAt for every frame, including ones in old segments.
    for (const w of written) {
      const frame = log.readAt(w.position);
      expect(frame.lsn).toBe(w.lsn);
      expect(frame.payload).toEqual(w.payload);
    }
    expect(log.readAt(written[4]!.position).chain).toEqual(expectedChain(written.slice(0, 5).map((w) => w.payload)));
    log.close();
  });

  it("puts a batch larger than the segment size alone into a fresh segment", () => {
    const dir = tempDir();
    const log = SegmentLog.open({ dir, segmentSizeBytes: 200 });
    const written = writeBatches(log, [[10], [500], [10], [100, 100, 100], [10]]);
    const sizes = log.segmentFiles().map(fileSize);
    const h = SEGMENT_HEADER_BYTES;
    expect(sizes).toEqual([h + 58, h + 548, h + 58, h + 3 * 148, h + 58]);
    expect([...log.frames(0, { copyPayloads: true })].map((f) => f.payload)).toEqual(written.map((w) => w.payload));
    log.close();
  });

  it("handles many segments and many frames", () => {
    const dir = tempDir();
    let log = SegmentLog.open({ dir, segmentSizeBytes: 1024, readChunkBytes: 4096 });
    const batches: number[][] = [];
    for (let b = 0; b < 200; b++) batches.push(Array.from({ length: 1 + (b % 7) }, (_, i) => (b * 13 + i * 29) % 120));
    const written = writeBatches(log, batches);
    const segmentCount = log.stats.segments;
    expect(segmentCount).toBeGreaterThan(50);
    log.close();
    log = SegmentLog.open({ dir, segmentSizeBytes: 1024, readChunkBytes: 4096, verifyChainOnOpen: true });
    expect(log.lastLsn).toBe(written.length);
    expect(log.stats.segments).toBe(segmentCount);
    const read = [...log.frames(0, { copyPayloads: true, verify: "chain" })];
    expect(read.length).toBe(written.length);
    read.forEach((frame, i) => {
      expect(frame.payload).toEqual(written[i]!.payload);
      expect(frame.position).toBe(written[i]!.position);
    });
    for (let i = 0; i < written.length; i += 37) expect(log.readAt(written[i]!.position).lsn).toBe(written[i]!.lsn);
    log.close();
  });

  it("reads frames larger than the read chunk", () => {
    const dir = tempDir();
    let log = SegmentLog.open({ dir, readChunkBytes: 4096 });
    const written = writeBatches(log, [[10, 10_000, 5], [70_000], [3]]);
    log.close();
    log = SegmentLog.open({ dir, readChunkBytes: 4096 });
    const read = [...log.frames(0, { copyPayloads: true })];
    expect(read.length).toBe(written.length);
    read.forEach((frame, i) => expect(frame.payload.equals(written[i]!.payload)).toBe(true));
    expect(log.readAt(written[3]!.position).payload.equals(written[3]!.payload)).toBe(true);
    log.close();
  });
});

describe("readAt", () => {
  it("rejects positions outside the durable log and non-boundaries", () => {
    const dir = tempDir();
    const log = SegmentLog.open({ dir });
    writeBatches(log, [[100, 100]]);
    log.append(Buffer.alloc(5)); // staged, not readable
    expect(() => log.readAt(-1)).toThrow(RangeError);
    expect(() => log.readAt(log.endPosition)).toThrow(RangeError);
    expect(() => log.readAt(1.5)).toThrow(RangeError);
    expect(() => log.readAt(10)).toThrow(/not a frame boundary/);
    expect(log.readAt(148).lsn).toBe(2);
    log.close();
    expect(() => log.readAt(0)).toThrow(LogClosedError);
  });
});
