import { readdirSync } from "node:fs";
import * as path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FRAME_HEADER_BYTES, LogCorruptError, nodeStorageFs, SEGMENT_HEADER_BYTES, SegmentLog, type StorageFs } from "../../storage/index.js";
import { flipByte, payloadFor, tempDir } from "./helpers.js";

/** A log of frames of mixed sizes (some larger than readAt's first read and than the window's tail). */
function writeLog(segmentSizeBytes: number): { dir: string; positions: number[]; payloads: Buffer[] } {
  const dir = tempDir("read-many");
  const log = SegmentLog.open({ dir, segmentSizeBytes });
  const positions: number[] = [];
  const payloads: Buffer[] = [];
  for (let i = 0; i < 900; i++) {
    const payload = payloadFor(i, i % 97 === 0 ? 3_000 + i : 120 + (i % 13) * 17);
    payloads.push(payload);
    positions.push(log.append(payload).position);
    if (i % 7 === 6) log.commitSync();
  }
  log.commitSync();
  log.close();
  return { dir, positions, payloads };
}

function countingReads(): StorageFs & { reads: number } {
  const counted = { ...nodeStorageFs, reads: 0, readSync: (...args: Parameters<StorageFs["readSync"]>) => { counted.reads++; return nodeStorageFs.readSync(...args); } };
  return counted;
}

describe("readManyAt", () => {
  it.each([64 * 1024 * 1024, 16 * 1024])("gives exactly what readAt gives, for any ascending subset (segments of %i bytes)", (segmentSizeBytes) => {
    const { dir, positions, payloads } = writeLog(segmentSizeBytes);
    const log = SegmentLog.open({ dir, segmentSizeBytes });
    try {
      fc.assert(
        fc.property(fc.subarray(positions.map((position, index) => ({ position, index }))), (chosen) => {
          const seen: Array<{ lsn: number; payload: Buffer; chain: Buffer; index: number }> = [];
          log.readManyAt(chosen.map((c) => c.position), (frame, index) => seen.push({ lsn: frame.lsn, payload: frame.payload, chain: frame.chain, index }));
          expect(seen.map((s) => s.index)).toEqual(chosen.map((_, i) => i));
          chosen.forEach((c, i) => {
            const one = log.readAt(c.position);
            expect(seen[i]?.lsn).toBe(one.lsn);
            expect(seen[i]?.lsn).toBe(c.index + 1);
            expect(seen[i]?.payload.equals(payloads[c.index] as Buffer)).toBe(true);
            expect(seen[i]?.chain.equals(one.chain)).toBe(true);
          });
        }),
        { numRuns: 60 },
      );
    } finally {
      log.close();
    }
  });

  it("hands out frames that own their bytes", () => {
    const { dir, positions, payloads } = writeLog(64 * 1024 * 1024);
    const log = SegmentLog.open({ dir });
    const kept: Buffer[] = [];
    log.readManyAt(positions, (frame) => kept.push(frame.payload));
    log.readManyAt(positions.slice(5), () => undefined); // reuses the window buffer
    expect(kept.every((payload, i) => payload.equals(payloads[i] as Buffer))).toBe(true);
    log.close();
  });

  it("reads frames that lie close together with far fewer preads than one per frame", () => {
    const { dir, positions } = writeLog(64 * 1024 * 1024);
    const fs = countingReads();
    const log = SegmentLog.open({ dir, fs });
    const before = fs.reads;
    log.readManyAt(positions, () => undefined);
    expect(fs.reads - before).toBeLessThan(positions.length / 20);
    log.close();
  });

  it("refuses a damaged frame, a position that is not a frame boundary, and positions out of order", () => {
    // Damage in a sealed segment that open trusts (as after a snapshot), so only the read finds it.
    const { dir, positions } = writeLog(16 * 1024);
    const segment = readdirSync(dir).filter((n) => n.endsWith(".seg")).sort()[0] as string;
    flipByte(path.join(dir, segment), SEGMENT_HEADER_BYTES + (positions[10] as number) + FRAME_HEADER_BYTES + 3);
    const log = SegmentLog.open({ dir, segmentSizeBytes: 16 * 1024, trustSealedSegmentsBeforePosition: positions.at(-1) as number });
    expect(() => log.readManyAt(positions.slice(0, 20), () => undefined)).toThrow(LogCorruptError);
    expect(() => log.readManyAt(positions.slice(0, 20), () => undefined)).toThrow(/crc32c mismatch/);
    expect(() => log.readManyAt([positions[1] as number, (positions[2] as number) + 1], () => undefined)).toThrow(LogCorruptError);
    expect(() => log.readManyAt([positions[3] as number, positions[2] as number], () => undefined)).toThrow(/ascend/);
    log.close();
  });
});
