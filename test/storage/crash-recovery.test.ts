import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import {
  LogCorruptError,
  SEGMENT_HEADER_BYTES,
  SegmentLog,
  genesisChainHash,
  nextChainHash,
  type SegmentLogOptions,
} from "../../storage/index.js";
import { encodeFrame } from "../../storage/frame.js";
import { fileSize, flipByte, payloadFor, tempDir } from "./helpers.js";

interface Fixture {
  dir: string;
  payloads: Buffer[];
  /** File offset (in the last segment) where each frame starts; -1 for frames in older segments. */
  frameStartsInLastSegment: number[];
  lastSegmentPath: string;
  lastSegmentBytes: Buffer;
  /** File offset in the last segment where the last committed batch starts. */
  lastBatchStart: number;
  options: SegmentLogOptions;
  segmentCount: number;
  segmentFiles: string[];
}

/**
 * Builds a log whose last segment holds a few committed batches; the final batch has frames of
 * varied sizes (including an empty payload) so cuts land in every header field and payload.
 */
function buildFixture(batches: number[][], options: Omit<SegmentLogOptions, "dir"> = {}): Fixture {
  const dir = tempDir("crash");
  const fullOptions = { ...options, dir };
  const log = SegmentLog.open(fullOptions);
  const payloads: Buffer[] = [];
  const positions: number[] = [];
  let lastBatchFirstIndex = 0;
  for (const batch of batches) {
    lastBatchFirstIndex = payloads.length;
    for (const size of batch) {
      const payload = payloadFor(payloads.length, size);
      positions.push(log.append(payload).position);
      payloads.push(payload);
    }
    log.commitSync();
  }
  const files = log.segmentFiles();
  log.close();
  const lastSegmentPath = files[files.length - 1] as string;
  const lastBase = Number(path.basename(lastSegmentPath).slice(0, 20));
  const frameStartsInLastSegment = positions.map((p) => (p >= lastBase ? SEGMENT_HEADER_BYTES + p - lastBase : -1));
  const lastBatchStart = frameStartsInLastSegment[lastBatchFirstIndex] as number;
  expect(lastBatchStart).toBeGreaterThanOrEqual(SEGMENT_HEADER_BYTES);
  return { dir, payloads, frameStartsInLastSegment, lastSegmentPath, lastSegmentBytes: fs.readFileSync(lastSegmentPath), lastBatchStart, options: fullOptions, segmentCount: files.length, segmentFiles: files };
}

/**
 * Deletes segments created after the fixture was built (checkRecoveryAfterDamage appends, which
 * may rotate when segments are small), so the next damage case starts from the fixture's files.
 */
function removeLaterSegments(fixture: Fixture): void {
  for (const name of fs.readdirSync(fixture.dir)) {
    const filePath = path.join(fixture.dir, name);
    if (name.endsWith(".seg") && !fixture.segmentFiles.includes(filePath)) fs.rmSync(filePath);
  }
}

/** Number of frames that are wholly inside the first `cut` bytes of the last segment, plus older ones. */
function framesSurvivingCut(fixture: Fixture, cut: number): { count: number; endOffset: number } {
  let count = 0;
  let endOffset = SEGMENT_HEADER_BYTES;
  fixture.payloads.forEach((payload, index) => {
    const start = fixture.frameStartsInLastSegment[index] as number;
    if (start < 0) {
      count++;
      return;
    }
    const end = start + 48 + payload.length;
    if (end <= cut) {
      count++;
      endOffset = end;
    }
  });
  return { count, endOffset };
}

function chainOf(payloads: Buffer[]): Buffer {
  return payloads.reduce<Buffer>((chain, payload) => nextChainHash(chain, payload), genesisChainHash());
}

/** Reopen after damage, check survivors, truncation and that appending continues correctly. */
function checkRecoveryAfterDamage(fixture: Fixture, cut: number, damagedFileSize: number): void {
  const { count, endOffset } = framesSurvivingCut(fixture, cut);
  const log = SegmentLog.open(fixture.options);
  try {
    expect(log.lastLsn, `cut at ${cut}`).toBe(count);
    if (fixture.options.trustSealedSegmentsBeforePosition !== undefined) {
      // Every sealed segment was trusted; only the last one was scanned (and truncated).
      expect(log.recovery.segmentsTrusted).toBe(fixture.segmentCount - 1);
      expect(log.recovery.segmentsScanned).toBe(1);
    }
    expect(log.chainHead).toEqual(chainOf(fixture.payloads.slice(0, count)));
    const truncation = log.recovery.truncation;
    if (endOffset === damagedFileSize) {
      expect(truncation, `cut at ${cut}`).toBeNull();
    } else {
      expect(truncation, `cut at ${cut}`).not.toBeNull();
      expect(truncation?.segmentFile).toBe(fixture.lastSegmentPath);
      expect(truncation?.truncatedAtFileOffsetBytes).toBe(endOffset);
      expect(truncation?.truncatedBytes).toBe(damagedFileSize - endOffset);
      expect(truncation?.truncatedAtPosition).toBe(log.endPosition);
    }
    expect(fileSize(fixture.lastSegmentPath)).toBe(endOffset);
    const replayed = [...log.frames(0, { copyPayloads: true, verify: "chain" })].map((f) => f.payload);
    expect(replayed).toEqual(fixture.payloads.slice(0, count));

    const extra = Buffer.from(`after cut ${cut}`);
    const appended = log.append(extra);
    expect(appended.lsn).toBe(count + 1);
    log.commitSync();
    expect(log.chainHead).toEqual(chainOf([...fixture.payloads.slice(0, count), extra]));
  } finally {
    log.close();
  }
  const reopened = SegmentLog.open({ ...fixture.options, verifyChainOnOpen: true });
  expect(reopened.lastLsn).toBe(count + 1);
  expect(reopened.recovery.truncation).toBeNull();
  expect(reopened.verify().ok).toBe(true);
  reopened.close();
}

describe("crash simulation: torn tail of the last segment", () => {
  const batches = [[20, 0, 33], [7], [1, 0, 64, 2, 40]];

  it("cutting the file at every byte offset of the last batch keeps exactly the whole frames before the cut", () => {
    const fixture = buildFixture(batches);
    const fullSize = fixture.lastSegmentBytes.length;
    let cuts = 0;
    for (let cut = fixture.lastBatchStart; cut <= fullSize; cut++) {
      fs.writeFileSync(fixture.lastSegmentPath, fixture.lastSegmentBytes.subarray(0, cut));
      checkRecoveryAfterDamage(fixture, cut, cut);
      cuts++;
    }
    expect(cuts).toBe(fullSize - fixture.lastBatchStart + 1);
  });

  it("zero-filling the file from every byte offset of the last batch (size extended, data lost) is also a torn tail", () => {
    const fixture = buildFixture(batches);
    const fullSize = fixture.lastSegmentBytes.length;
    for (let cut = fixture.lastBatchStart; cut < fullSize; cut++) {
      const damaged = Buffer.from(fixture.lastSegmentBytes);
      damaged.fill(0, cut);
      fs.writeFileSync(fixture.lastSegmentPath, damaged);
      checkRecoveryAfterDamage(fixture, cut, fullSize);
    }
  });

  it("zero bytes appended after the last frame (preallocated tail) are truncated and reported", () => {
    const fixture = buildFixture(batches);
    const fullSize = fixture.lastSegmentBytes.length;
    for (const extraZeros of [1, 47, 48, 49, 4096]) {
      fs.writeFileSync(fixture.lastSegmentPath, Buffer.concat([fixture.lastSegmentBytes, Buffer.alloc(extraZeros)]));
      checkRecoveryAfterDamage(fixture, fullSize, fullSize + extraZeros);
    }
  });

  it("a torn batch in a freshly rotated last segment truncates back to the empty segment", () => {
    // Segment size fits only the first batch, so the last batch is alone in a new segment.
    const fixture = buildFixture([[50, 50], [30, 0, 10]], { segmentSizeBytes: SEGMENT_HEADER_BYTES + 2 * 98 });
    expect(fixture.lastBatchStart).toBe(SEGMENT_HEADER_BYTES);
    for (let cut = SEGMENT_HEADER_BYTES; cut <= fixture.lastSegmentBytes.length; cut++) {
      fs.writeFileSync(fixture.lastSegmentPath, fixture.lastSegmentBytes.subarray(0, cut));
      checkRecoveryAfterDamage(fixture, cut, cut);
    }
  });

  describe("with every sealed segment trusted (trustSealedSegmentsBeforePosition = end of log), the same rules hold", () => {
    const trusted = { segmentSizeBytes: SEGMENT_HEADER_BYTES + 2 * 98, trustSealedSegmentsBeforePosition: Number.MAX_SAFE_INTEGER };
    const trustedBatches = [[50, 50], [50], [50, 50], [1, 0, 64, 2, 40]];

    it("cutting the last segment at every byte offset of the last batch", () => {
      const fixture = buildFixture(trustedBatches, trusted);
      expect(fixture.segmentCount).toBe(4);
      for (let cut = fixture.lastBatchStart; cut <= fixture.lastSegmentBytes.length; cut++) {
        removeLaterSegments(fixture);
        fs.writeFileSync(fixture.lastSegmentPath, fixture.lastSegmentBytes.subarray(0, cut));
        checkRecoveryAfterDamage(fixture, cut, cut);
      }
    });

    it("zero-filling the last segment from every byte offset of the last batch", () => {
      const fixture = buildFixture(trustedBatches, trusted);
      const fullSize = fixture.lastSegmentBytes.length;
      for (let cut = fixture.lastBatchStart; cut < fullSize; cut++) {
        removeLaterSegments(fixture);
        const damaged = Buffer.from(fixture.lastSegmentBytes);
        damaged.fill(0, cut);
        fs.writeFileSync(fixture.lastSegmentPath, damaged);
        checkRecoveryAfterDamage(fixture, cut, fullSize);
      }
    });
  });

  it("a last segment whose header is damaged refuses to open (headers are written atomically)", () => {
    const fixture = buildFixture([[50, 50], [30]], { segmentSizeBytes: SEGMENT_HEADER_BYTES + 2 * 98 });
    fs.writeFileSync(fixture.lastSegmentPath, fixture.lastSegmentBytes.subarray(0, 20));
    expect(() => SegmentLog.open(fixture.options)).toThrow(LogCorruptError);
  });

  it("removes leftover segment temp files from an interrupted rotation", () => {
    const fixture = buildFixture([[5]]);
    fs.writeFileSync(path.join(fixture.dir, "00000000000000000053.seg.tmp"), Buffer.alloc(10));
    const log = SegmentLog.open(fixture.options);
    expect(log.recovery.removedTempFiles).toEqual(["00000000000000000053.seg.tmp"]);
    expect(fs.readdirSync(fixture.dir).sort()).toEqual(["00000000000000000000.seg"]);
    log.close();
  });
});

function expectCorrupt(options: SegmentLogOptions, filePath: string, fileOffsetBytes: number, pattern?: RegExp): void {
  let caught: unknown = null;
  try {
    SegmentLog.open(options).close();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(LogCorruptError);
  const corrupt = caught as LogCorruptError;
  expect(corrupt.filePath).toBe(filePath);
  expect(corrupt.fileOffsetBytes).toBe(fileOffsetBytes);
  expect(corrupt.message).toContain(filePath);
  expect(corrupt.message).toContain(`byte offset ${fileOffsetBytes}`);
  if (pattern !== undefined) expect(corrupt.message).toMatch(pattern);
}

describe("mid-log corruption refuses to open", () => {
  it("a flipped byte in an earlier frame of the last segment", () => {
    const fixture = buildFixture([[20, 30], [40]]);
    const frameStart = fixture.frameStartsInLastSegment[1] as number;
    for (const offsetInFrame of [4, 8, 20, 48 + 29]) {
      fs.writeFileSync(fixture.lastSegmentPath, fixture.lastSegmentBytes);
      flipByte(fixture.lastSegmentPath, frameStart + offsetInFrame);
      expectCorrupt(fixture.options, fixture.lastSegmentPath, frameStart, /crc-mismatch/);
    }
    // The damaged file was left untouched (nothing truncated).
    expect(fileSize(fixture.lastSegmentPath)).toBe(fixture.lastSegmentBytes.length);
  });

  it("a flipped byte in an earlier segment, even in its last frame", () => {
    const dir = tempDir("crash");
    const log = SegmentLog.open({ dir, segmentSizeBytes: 200 });
    for (let i = 0; i < 10; i++) {
      log.append(payloadFor(i, 50));
      log.commitSync();
    }
    const files = log.segmentFiles();
    log.close();
    expect(files.length).toBeGreaterThan(3);
    const victim = files[1] as string;
    const lastFrameStart = fileSize(victim) - 98;
    flipByte(victim, lastFrameStart + 60);
    expectCorrupt({ dir, segmentSizeBytes: 200 }, victim, lastFrameStart, /not in the last segment/);
  });

  it("a flipped byte in the last frame followed by more (non-zero) data", () => {
    const fixture = buildFixture([[20], [30, 40]]);
    const lastStart = fixture.frameStartsInLastSegment[2] as number;
    const damaged = Buffer.concat([fixture.lastSegmentBytes, Buffer.from("garbage after the last frame")]);
    damaged[lastStart + 50] = (damaged[lastStart + 50] as number) ^ 1;
    fs.writeFileSync(fixture.lastSegmentPath, damaged);
    expectCorrupt(fixture.options, fixture.lastSegmentPath, lastStart, /not a torn tail/);
  });

  it("a flipped byte in the very last frame with nothing after it is a torn tail (documented rule)", () => {
    const fixture = buildFixture([[20], [30, 40]]);
    const lastStart = fixture.frameStartsInLastSegment[2] as number;
    flipByte(fixture.lastSegmentPath, lastStart + 60);
    const log = SegmentLog.open(fixture.options);
    expect(log.lastLsn).toBe(2);
    expect(log.recovery.truncation?.truncatedBytes).toBe(48 + 40);
    log.close();
  });

  it("a length field enlarged past EOF on a complete frame is not mistaken for a torn tail", () => {
    // Last frame: the CRC still matches when the frame is taken to end at EOF.
    let fixture = buildFixture([[20], [30, 40]]);
    let start = fixture.frameStartsInLastSegment[2] as number;
    let damaged = Buffer.from(fixture.lastSegmentBytes);
    damaged.writeUInt32LE(4000, start);
    fs.writeFileSync(fixture.lastSegmentPath, damaged);
    expectCorrupt(fixture.options, fixture.lastSegmentPath, start, /extent-past-end/);

    // Earlier frame: a valid frame with the next lsn follows.
    fixture = buildFixture([[20], [30, 40, 50]]);
    start = fixture.frameStartsInLastSegment[1] as number;
    damaged = Buffer.from(fixture.lastSegmentBytes);
    damaged.writeUInt32LE(100_000, start);
    fs.writeFileSync(fixture.lastSegmentPath, damaged);
    expectCorrupt(fixture.options, fixture.lastSegmentPath, start, /extent-past-end/);
  });

  it("a CRC-valid frame with the wrong lsn at the tail is refused, not truncated", () => {
    const fixture = buildFixture([[20], [30]]);
    const bogus = encodeFrame(7, Buffer.alloc(32), Buffer.from("out of sequence"));
    fs.writeFileSync(fixture.lastSegmentPath, Buffer.concat([fixture.lastSegmentBytes, bogus]));
    expectCorrupt(fixture.options, fixture.lastSegmentPath, fixture.lastSegmentBytes.length, /lsn-discontinuity/);
  });

  it("a missing middle segment, a renamed segment and a stray .seg name are refused", () => {
    const dir = tempDir("crash");
    const log = SegmentLog.open({ dir, segmentSizeBytes: 200 });
    for (let i = 0; i < 8; i++) {
      log.append(payloadFor(i, 50));
      log.commitSync();
    }
    const files = log.segmentFiles();
    log.close();
    const middle = files[2] as string;
    const saved = fs.readFileSync(middle);
    fs.rmSync(middle);
    expectCorrupt({ dir }, files[3] as string, 0, /missing or extra segment/);

    const extra = path.join(dir, "00000000000000999999.seg");
    fs.writeFileSync(extra, saved); // an extra segment that does not continue the log
    fs.writeFileSync(middle, saved);
    expectCorrupt({ dir }, extra, 0, /missing or extra segment/);
    fs.rmSync(extra);

    fs.writeFileSync(path.join(dir, "17.seg"), Buffer.alloc(0));
    expectCorrupt({ dir }, path.join(dir, "17.seg"), 0, /20 digits/);
    fs.rmSync(path.join(dir, "17.seg"));

    fs.rmSync(files[0] as string);
    expectCorrupt({ dir }, files[1] as string, 0, /missing or extra segment/);
  });

  it("a segment whose header names a different base position is refused", () => {
    const dir = tempDir("crash");
    const log = SegmentLog.open({ dir, segmentSizeBytes: 200 });
    for (let i = 0; i < 4; i++) {
      log.append(payloadFor(i, 50));
      log.commitSync();
    }
    const files = log.segmentFiles();
    log.close();
    flipByte(files[1] as string, 16); // base position field of the header
    expectCorrupt({ dir }, files[1] as string, 0, /crc mismatch/);
  });
});
