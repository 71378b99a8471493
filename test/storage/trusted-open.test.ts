/**
 * Trusted open (`trustSealedSegmentsBeforePosition` / `trustSealedSegmentsThroughLsn`), segment
 * header v2 consistency, and frames(fromLsn) starting at the right segment.
 *
 * Trade-off under test: open does not read the frames of trusted segments, so damage inside them
 * is NOT detected by open; `verify()` (the audit path) always scans everything and detects it.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import {
  LogCorruptError,
  SEGMENT_HEADER_BYTES,
  SegmentLog,
  genesisChainHash,
  nextChainHash,
  nodeStorageFs,
  type SegmentLogOptions,
  type StorageFs,
} from "../../storage/index.js";
import { crc32c } from "../../storage/crc32c.js";
import { fileSize, flipByte, fsWith, payloadFor, tempDir } from "./helpers.js";

const PAYLOAD_BYTES = 50;
const FRAME_BYTES = 48 + PAYLOAD_BYTES;
const FRAMES_PER_SEGMENT = 3;
const SEGMENT_FRAME_BYTES = FRAMES_PER_SEGMENT * FRAME_BYTES;
const SEGMENT_SIZE_BYTES = SEGMENT_HEADER_BYTES + SEGMENT_FRAME_BYTES;

interface Built {
  dir: string;
  files: string[];
  payloads: Buffer[];
  head: Buffer;
  endPosition: number;
}

/**
 * `segmentCount` segments of exactly 3 frames (one frame per commit), except the last, which
 * holds `lastSegmentFrames` (1..3). Segment i has base i*294 and first lsn 3i+1.
 */
function buildLog(segmentCount: number, lastSegmentFrames = 2): Built {
  const dir = tempDir("trusted");
  const log = SegmentLog.open({ dir, segmentSizeBytes: SEGMENT_SIZE_BYTES });
  const total = (segmentCount - 1) * FRAMES_PER_SEGMENT + lastSegmentFrames;
  const payloads: Buffer[] = [];
  for (let i = 0; i < total; i++) {
    const payload = payloadFor(i, PAYLOAD_BYTES);
    log.append(payload);
    log.commitSync();
    payloads.push(payload);
  }
  const built = { dir, files: log.segmentFiles(), payloads, head: log.chainHead, endPosition: log.endPosition };
  log.close();
  expect(built.files.length).toBe(segmentCount);
  return built;
}

const options = (dir: string, extra: Partial<SegmentLogOptions> = {}): SegmentLogOptions => ({ dir, segmentSizeBytes: SEGMENT_SIZE_BYTES, ...extra });
const baseOf = (segmentIndex: number): number => segmentIndex * SEGMENT_FRAME_BYTES;
const frameOffset = (indexInSegment: number): number => SEGMENT_HEADER_BYTES + indexInSegment * FRAME_BYTES;
const chainOf = (payloads: Buffer[]): Buffer => payloads.reduce<Buffer>((c, p) => nextChainHash(c, p), genesisChainHash());

/** node:fs that records, per file name, every pread (file offset and bytes) and every open. */
function countingFs(): { fs: StorageFs; reads: Map<string, Array<[number, number]>>; opens: Map<string, number>; reset(): void } {
  const nameOfFd = new Map<number, string>();
  const reads = new Map<string, Array<[number, number]>>();
  const opens = new Map<string, number>();
  const countingStorageFs = fsWith({
    openSync: (filePath, flags) => {
      const fd = nodeStorageFs.openSync(filePath, flags);
      const name = path.basename(filePath);
      nameOfFd.set(fd, name);
      opens.set(name, (opens.get(name) ?? 0) + 1);
      return fd;
    },
    readSync: (fd, buffer, offset, length, positionBytes) => {
      const got = nodeStorageFs.readSync(fd, buffer, offset, length, positionBytes);
      const name = nameOfFd.get(fd) ?? `fd ${fd}`;
      const list = reads.get(name) ?? [];
      list.push([positionBytes, got]);
      reads.set(name, list);
      return got;
    },
  });
  return { fs: countingStorageFs, reads, opens, reset: () => { reads.clear(); opens.clear(); } };
}

/** Names of files from which any byte past the segment header was read. */
function filesWithFrameReads(reads: Map<string, Array<[number, number]>>): string[] {
  return [...reads.entries()].filter(([, list]) => list.some(([at, n]) => at + n > SEGMENT_HEADER_BYTES)).map(([name]) => name).sort();
}

/** Rewrites header fields of a segment file and recomputes the header CRC (a "well-formed lie"). */
function rewriteHeader(filePath: string, edit: (header: Buffer) => void): void {
  const content = fs.readFileSync(filePath);
  edit(content);
  content.writeUInt32LE(crc32c(content.subarray(0, 68)), 68);
  fs.writeFileSync(filePath, content);
}

function openError(openOptions: SegmentLogOptions): LogCorruptError {
  let caught: unknown = null;
  try {
    SegmentLog.open(openOptions).close();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(LogCorruptError);
  return caught as LogCorruptError;
}

function verifyError(log: SegmentLog): LogCorruptError {
  const result = log.verify();
  expect(result.ok).toBe(false);
  if (result.ok) throw new Error("unreachable");
  return result.error;
}

describe("trusted open of sealed segments", () => {
  it("does not read the frames of sealed segments before the position; state equals a full open", () => {
    const built = buildLog(20);
    const counting = countingFs();
    const bound = baseOf(12); // segments 0..11 end at or before it; segment 12 starts there
    const log = SegmentLog.open(options(built.dir, { trustSealedSegmentsBeforePosition: bound, fs: counting.fs }));
    expect(log.recovery).toMatchObject({
      segmentsTrusted: 12, framesTrusted: 36, segmentsScanned: 8, framesScanned: 23,
      trustedEndPosition: bound, trustedLastLsn: 36, truncation: null,
    });
    const names = built.files.map((f) => path.basename(f));
    expect(filesWithFrameReads(counting.reads)).toEqual(names.slice(12).sort());
    for (const name of names.slice(0, 12)) {
      for (const [at, n] of counting.reads.get(name) ?? []) expect(at + n).toBeLessThanOrEqual(SEGMENT_HEADER_BYTES);
    }
    expect(log.lastLsn).toBe(built.payloads.length);
    expect(log.chainHead).toEqual(built.head);
    expect(log.chainHead).toEqual(chainOf(built.payloads));
    expect(log.endPosition).toBe(built.endPosition);

    // Replay after the bound, the recommended startup path.
    const replayed = [...log.frames(36, { verify: "none", copyPayloads: true })];
    expect(replayed.map((f) => f.lsn)).toEqual(built.payloads.map((_, i) => i + 1).slice(36));
    expect(replayed.map((f) => f.payload)).toEqual(built.payloads.slice(36));
    // Trusted segments are still readable (checked when read) and audited by verify().
    expect(log.readAt(baseOf(3) + FRAME_BYTES).lsn).toBe(11);
    expect(log.readAt(baseOf(3) + FRAME_BYTES).payload).toEqual(built.payloads[10]);
    expect(log.verify()).toMatchObject({ ok: true, framesVerified: built.payloads.length, lastLsn: built.payloads.length });
    expect([...log.frames(0, { verify: "chain" })].length).toBe(built.payloads.length);

    // Appending continues the lsn and chain, and rotation writes consistent v2 headers.
    const extra = [Buffer.from("one"), Buffer.alloc(PAYLOAD_BYTES + 200, 7)];
    for (const payload of extra) {
      log.append(payload);
      log.commitSync();
    }
    expect(log.lastLsn).toBe(built.payloads.length + 2);
    log.close();
    const full = SegmentLog.open(options(built.dir, { verifyChainOnOpen: true }));
    expect(full.recovery.segmentsTrusted).toBe(0);
    expect(full.chainHead).toEqual(chainOf([...built.payloads, ...extra]));
    expect(full.verify().ok).toBe(true);
    full.close();
  });

  it("trusts exactly the sealed segments whose whole extent lies before the position (never the last)", () => {
    const built = buildLog(6);
    const sealedEnds = [1, 2, 3, 4, 5].map(baseOf); // end position of sealed segments 0..4
    const probes = new Set<number>([0, 1, built.endPosition, built.endPosition + 1, Number.MAX_SAFE_INTEGER]);
    for (const end of sealedEnds) for (const delta of [-1, 0, 1]) probes.add(end + delta);
    for (const bound of probes) {
      const expected = sealedEnds.filter((end) => end <= bound).length;
      const log = SegmentLog.open(options(built.dir, { trustSealedSegmentsBeforePosition: bound }));
      expect(log.recovery.segmentsTrusted, `bound ${bound}`).toBe(expected);
      expect(log.recovery.segmentsScanned, `bound ${bound}`).toBe(6 - expected);
      expect(log.recovery.framesTrusted + log.recovery.framesScanned).toBe(built.payloads.length);
      expect(log.recovery.trustedEndPosition).toBe(expected === 0 ? 0 : baseOf(expected));
      expect(log.chainHead).toEqual(built.head);
      log.close();
    }
  });

  it("trustSealedSegmentsThroughLsn trusts the sealed segments whose last lsn is <= the bound", () => {
    const built = buildLog(6);
    for (let bound = 0; bound <= built.payloads.length; bound++) {
      const expected = Math.min(5, Math.floor(bound / FRAMES_PER_SEGMENT));
      const log = SegmentLog.open(options(built.dir, { trustSealedSegmentsThroughLsn: bound }));
      expect(log.recovery.segmentsTrusted, `lsn ${bound}`).toBe(expected);
      expect(log.recovery.trustedLastLsn, `lsn ${bound}`).toBe(expected * FRAMES_PER_SEGMENT);
      expect(log.recovery.trustedLastLsn).toBeLessThanOrEqual(bound);
      expect(log.lastLsn).toBe(built.payloads.length);
      expect(log.chainHead).toEqual(built.head);
      // Everything after the bound was scanned by this open.
      expect([...log.frames(bound, { verify: "none" })].length).toBe(built.payloads.length - bound);
      log.close();
    }
  });

  it("validates the trust options", () => {
    const dir = tempDir("trusted");
    for (const bad of [-1, 1.5, Number.NaN, Number.MAX_SAFE_INTEGER + 1]) {
      expect(() => SegmentLog.open({ dir, trustSealedSegmentsBeforePosition: bad })).toThrow(RangeError);
      expect(() => SegmentLog.open({ dir, trustSealedSegmentsThroughLsn: bad })).toThrow(RangeError);
    }
    expect(() => SegmentLog.open({ dir, trustSealedSegmentsBeforePosition: 0, trustSealedSegmentsThroughLsn: 0 })).toThrow(RangeError);
    const log = SegmentLog.open({ dir, trustSealedSegmentsBeforePosition: Number.MAX_SAFE_INTEGER }); // fresh dir
    expect(log.recovery).toMatchObject({ createdFirstSegment: true, segmentsTrusted: 0 });
    log.close();
  });
});

describe("trusted open keeps the recovery rules for scanned segments", () => {
  it("corruption in the first scanned (sealed) segment still refuses to open", () => {
    const built = buildLog(8);
    const victim = built.files[5] as string;
    flipByte(victim, frameOffset(2) + 60);
    // Bound inside segment 5: segments 0..4 trusted, 5 is scanned and is not the last.
    const error = openError(options(built.dir, { trustSealedSegmentsBeforePosition: baseOf(5) + 10 }));
    expect(error.filePath).toBe(victim);
    expect(error.fileOffsetBytes).toBe(frameOffset(2));
    expect(error.message).toMatch(/crc-mismatch.*not in the last segment/);
  });

  it("a bad frame followed by data in the last segment still refuses; a bad very-last frame is truncated", () => {
    const built = buildLog(5, 3);
    const last = built.files[4] as string;
    const pristine = fs.readFileSync(last);
    const trusted = options(built.dir, { trustSealedSegmentsBeforePosition: Number.MAX_SAFE_INTEGER });

    flipByte(last, frameOffset(1) + 60);
    const error = openError(trusted);
    expect(error.filePath).toBe(last);
    expect(error.fileOffsetBytes).toBe(frameOffset(1));
    expect(error.message).toMatch(/not a torn tail/);

    fs.writeFileSync(last, pristine);
    flipByte(last, frameOffset(2) + 60);
    const log = SegmentLog.open(trusted);
    expect(log.recovery.segmentsTrusted).toBe(4);
    expect(log.recovery.truncation).toMatchObject({ segmentFile: last, truncatedAtFileOffsetBytes: frameOffset(2), truncatedBytes: FRAME_BYTES });
    expect(log.lastLsn).toBe(built.payloads.length - 1);
    expect(log.chainHead).toEqual(chainOf(built.payloads.slice(0, -1)));
    log.close();
  });

  it("with verifyChainOnOpen, the first scanned segment's chain starts from its header previousChain", () => {
    const built = buildLog(6);
    const log = SegmentLog.open(options(built.dir, { trustSealedSegmentsBeforePosition: baseOf(3), verifyChainOnOpen: true }));
    expect(log.recovery).toMatchObject({ segmentsTrusted: 3, chainVerified: true });
    expect(log.chainHead).toEqual(built.head);
    log.close();
  });
});

describe("trade-off: damage inside a trusted segment is not detected by open, only by verify()", () => {
  it("a flipped payload byte in a trusted segment: open succeeds, verify() and a full open report it", () => {
    const built = buildLog(10);
    const victim = built.files[3] as string;
    flipByte(victim, frameOffset(1) + 48 + 7);
    const trusted = options(built.dir, { trustSealedSegmentsBeforePosition: built.endPosition });

    const log = SegmentLog.open(trusted);
    expect(log.recovery.segmentsTrusted).toBe(9);
    expect(log.lastLsn).toBe(built.payloads.length);
    expect(log.chainHead).toEqual(built.head); // the head does not depend on the damaged frame's bytes
    // Replay after the damaged segment never touches it.
    expect([...log.frames(12, { verify: "crc" })].length).toBe(built.payloads.length - 12);
    // The audit path finds it, with file and offset.
    const error = verifyError(log);
    expect(error.filePath).toBe(victim);
    expect(error.fileOffsetBytes).toBe(frameOffset(1));
    expect(error.message).toMatch(/crc-mismatch/);
    expect(log.verify().framesVerified).toBe(3 * 3 + 1);
    // So do reads that cover it.
    expect(() => [...log.frames(0, { verify: "crc" })]).toThrow(LogCorruptError);
    expect(() => log.readAt(baseOf(3) + FRAME_BYTES)).toThrow(LogCorruptError);
    log.close();

    // Without the option (the default), open scans everything and refuses.
    const full = openError(options(built.dir));
    expect(full.filePath).toBe(victim);
    expect(full.fileOffsetBytes).toBe(frameOffset(1));
  });

  it("a trusted segment shorter or longer than its neighbours say breaks the tiling and refuses to open", () => {
    const built = buildLog(6);
    const trusted = options(built.dir, { trustSealedSegmentsBeforePosition: Number.MAX_SAFE_INTEGER });
    const victim = built.files[2] as string;
    const pristine = fs.readFileSync(victim);

    fs.truncateSync(victim, pristine.length - 1);
    let error = openError(trusted);
    expect(error.filePath).toBe(built.files[3]);
    expect(error.message).toMatch(/missing or extra segment/);

    fs.writeFileSync(victim, Buffer.concat([pristine, Buffer.alloc(5)]));
    error = openError(trusted);
    expect(error.filePath).toBe(built.files[3]);

    fs.writeFileSync(victim, pristine);
    fs.rmSync(built.files[1] as string);
    error = openError(trusted);
    expect(error.filePath).toBe(victim);
    expect(error.message).toMatch(/missing or extra segment/);
  });
});

describe("segment header v2 consistency (firstLsn, previousChain)", () => {
  it("a wrong previousChain: a full open refuses; a trusted open adopts it; verify() and chain reads catch it", () => {
    const built = buildLog(8);
    const victim = built.files[4] as string;
    rewriteHeader(victim, (h) => { h[40] = (h[40] as number) ^ 1; });

    const full = openError(options(built.dir));
    expect(full.filePath).toBe(victim);
    expect(full.fileOffsetBytes).toBe(0);
    expect(full.message).toMatch(/previousChain/);

    // Segment 3 trusted, segment 4 scanned starting from its (wrong) header previousChain.
    for (const bound of [baseOf(4), built.endPosition]) {
      const log = SegmentLog.open(options(built.dir, { trustSealedSegmentsBeforePosition: bound }));
      expect(log.lastLsn).toBe(built.payloads.length);
      const error = verifyError(log);
      expect(error.filePath).toBe(victim);
      expect(error.fileOffsetBytes).toBe(0);
      expect(error.message).toMatch(/previousChain .* does not match the chain computed by the scan/);
      expect(log.verify().framesVerified).toBe(12);
      // Chain-verifying reads: across the boundary the carried chain disagrees with the header;
      // starting in the segment, the header value does not link to its first frame.
      expect(() => [...log.frames(10, { verify: "chain" })]).toThrow(/previousChain/);
      expect(() => [...log.frames(13, { verify: "chain" })]).toThrow(/chain-mismatch/);
      expect([...log.frames(13, { verify: "crc" })].length).toBe(built.payloads.length - 13);
      log.close();
    }
    // A chain-verifying trusted open also catches it when the segment is scanned.
    expect(openError(options(built.dir, { trustSealedSegmentsBeforePosition: baseOf(4), verifyChainOnOpen: true })).message)
      .toMatch(/chain-mismatch/);
  });

  it("a wrong firstLsn in a trusted segment's header: open accepts, verify() names the file", () => {
    const built = buildLog(8);
    const victim = built.files[4] as string;
    rewriteHeader(victim, (h) => h.writeBigUInt64LE(BigInt(4 * 3 + 1 + 1), 24)); // says 14, truly 13

    const full = openError(options(built.dir));
    expect(full.filePath).toBe(victim);
    expect(full.message).toMatch(/firstLsn 14 does not continue the log/);

    // Segment 4 scanned: its first frame carries lsn 13, not the header's 14.
    const scanned = openError(options(built.dir, { trustSealedSegmentsBeforePosition: baseOf(4) }));
    expect(scanned.filePath).toBe(victim);
    expect(scanned.message).toMatch(/lsn-discontinuity/);

    // Segments 3 and 4 both trusted: only the header lsns disagree (3 holds "4" frames, 4 holds "2").
    const log = SegmentLog.open(options(built.dir, { trustSealedSegmentsBeforePosition: baseOf(5) }));
    expect(log.lastLsn).toBe(built.payloads.length);
    const error = verifyError(log);
    expect(error.filePath).toBe(victim);
    expect(error.fileOffsetBytes).toBe(0);
    expect(error.message).toMatch(/firstLsn 14 does not match the lsn computed by the scan \(13\)/);
    expect(() => [...log.frames(0, { verify: "none" })]).toThrow(LogCorruptError);
    log.close();
  });

  it("header lsns that give a sealed segment no frames (or too many for its bytes) refuse a trusted open", () => {
    const built = buildLog(6);
    const trusted = options(built.dir, { trustSealedSegmentsBeforePosition: Number.MAX_SAFE_INTEGER });
    const victim = built.files[3] as string;
    const pristine = fs.readFileSync(victim);
    for (const [firstLsn, frames] of [[7, 0], [6, -1], [7 + 7, 7]] as const) {
      fs.writeFileSync(victim, pristine);
      rewriteHeader(victim, (h) => h.writeBigUInt64LE(BigInt(firstLsn), 24));
      const error = openError(trusted);
      expect(error.filePath).toBe(victim);
      expect(error.message).toContain(`holds ${frames} frames, which is impossible`);
    }
  });

  it("the first segment must start at lsn 1 with the genesis chain, trusted or not", () => {
    const built = buildLog(4);
    const first = built.files[0] as string;
    const pristine = fs.readFileSync(first);
    for (const edit of [(h: Buffer) => h.writeBigUInt64LE(2n, 24), (h: Buffer) => { h[33] = 1; }]) {
      fs.writeFileSync(first, pristine);
      rewriteHeader(first, edit);
      for (const extra of [{}, { trustSealedSegmentsBeforePosition: Number.MAX_SAFE_INTEGER }]) {
        const error = openError(options(built.dir, extra));
        expect(error.filePath).toBe(first);
        expect(error.fileOffsetBytes).toBe(0);
      }
    }
  });

  it("an old v1 header (version 1) is refused", () => {
    const built = buildLog(2);
    rewriteHeader(built.files[1] as string, (h) => h.writeUInt32LE(1, 8));
    expect(openError(options(built.dir)).message).toMatch(/unsupported segment format version 1/);
  });
});

describe("frames(fromLsn) starts at the segment holding fromLsn + 1", () => {
  it("from the middle of a 50-segment log: exact frames, and no segment before the right one is opened", () => {
    const built = buildLog(50);
    const total = built.payloads.length; // 49 * 3 + 2 = 149
    const counting = countingFs();
    for (const trust of [{}, { trustSealedSegmentsBeforePosition: Number.MAX_SAFE_INTEGER }]) {
      const log = SegmentLog.open(options(built.dir, { ...trust, fs: counting.fs }));
      for (const from of [0, 1, 2, 3, 72, 73, 74, 75, 100, 146, 147, 148]) {
        for (const verify of ["none", "crc", "chain"] as const) {
          counting.reset();
          const frames = [...log.frames(from, { verify, copyPayloads: true })];
          expect(frames.map((f) => f.lsn), `from ${from} ${verify}`).toEqual(Array.from({ length: total - from }, (_, i) => from + 1 + i));
          expect(frames.map((f) => f.payload)).toEqual(built.payloads.slice(from));
          expect(frames.map((f) => f.position)).toEqual(frames.map((f) => (f.lsn - 1) * FRAME_BYTES));
          const firstSegment = Math.floor(from / FRAMES_PER_SEGMENT);
          const expectedFiles = built.files.slice(firstSegment).map((f) => path.basename(f));
          expect([...counting.opens.keys()].sort(), `from ${from}`).toEqual([...expectedFiles].sort());
          expect(filesWithFrameReads(counting.reads)).toEqual([...expectedFiles].sort());
          if (verify === "chain" && frames.length > 0) expect(frames.at(-1)?.chain).toEqual(built.head);
        }
      }
      counting.reset();
      expect([...log.frames(total)]).toEqual([]);
      expect(counting.opens.size).toBe(0);
      log.close();
    }
  });

  it("works when the last segment is empty (fresh rotation) and after commits during iteration", () => {
    const dir = tempDir("trusted");
    const log = SegmentLog.open({ dir, segmentSizeBytes: SEGMENT_SIZE_BYTES });
    for (let i = 0; i < 7; i++) {
      log.append(payloadFor(i, PAYLOAD_BYTES));
      log.commitSync();
    }
    const iterator = log.frames(4, { verify: "chain" });
    for (let i = 7; i < 10; i++) {
      log.append(payloadFor(i, PAYLOAD_BYTES));
      log.commitSync();
    }
    expect([...iterator].map((f) => f.lsn)).toEqual([5, 6, 7]);
    expect([...log.frames(8, { verify: "chain" })].map((f) => f.lsn)).toEqual([9, 10]);
    const files = log.segmentFiles();
    log.close();
    // Leave an empty last segment behind, as a rotation whose batch never landed would.
    const emptyLast = path.join(dir, String(10 * FRAME_BYTES).padStart(20, "0") + ".seg");
    const header = fs.readFileSync(files[files.length - 1] as string).subarray(0, SEGMENT_HEADER_BYTES);
    header.writeBigUInt64LE(BigInt(10 * FRAME_BYTES), 16);
    header.writeBigUInt64LE(11n, 24);
    chainOf(Array.from({ length: 10 }, (_, i) => payloadFor(i, PAYLOAD_BYTES))).copy(header, 32);
    header.writeUInt32LE(crc32c(header.subarray(0, 68)), 68);
    fs.writeFileSync(emptyLast, header);
    const reopened = SegmentLog.open({ dir, segmentSizeBytes: SEGMENT_SIZE_BYTES, trustSealedSegmentsThroughLsn: 10 });
    expect(reopened.recovery).toMatchObject({ segmentsTrusted: 4, framesTrusted: 10, segmentsScanned: 1, framesScanned: 0 });
    expect(fileSize(emptyLast)).toBe(SEGMENT_HEADER_BYTES);
    expect(reopened.lastLsn).toBe(10);
    expect([...reopened.frames(9, { verify: "chain" })].map((f) => f.lsn)).toEqual([10]);
    expect([...reopened.frames(10)]).toEqual([]);
    expect(reopened.verify()).toMatchObject({ ok: true, framesVerified: 10 });
    reopened.append(Buffer.from("next"));
    reopened.commitSync();
    expect(reopened.lastLsn).toBe(11);
    expect(reopened.verify().ok).toBe(true);
    reopened.close();
  });
});
