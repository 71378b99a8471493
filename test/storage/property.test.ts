import { describe, expect, it } from "vitest";
import fc from "fast-check";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { SEGMENT_HEADER_BYTES, SegmentLog, genesisChainHash, nextChainHash } from "../../storage/index.js";

describe("property: whatever is committed comes back identically after reopen", () => {
  it("random batch sizes, payload sizes and segment sizes", () => {
    const batchesArb = fc.array(fc.array(fc.uint8Array({ maxLength: 300 }), { minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 25 });
    fc.assert(
      fc.property(
        fc.integer({ min: SEGMENT_HEADER_BYTES + 48, max: 3000 }),
        fc.integer({ min: 4096, max: 20_000 }),
        batchesArb,
        fc.boolean(),
        (segmentSizeBytes, readChunkBytes, batches, stageUncommittedTail) => {
          const dir = fs.mkdtempSync(path.join(os.tmpdir(), "storage-prop-"));
          try {
            const options = { dir, segmentSizeBytes, readChunkBytes };
            let log = SegmentLog.open(options);
            const expected: Array<{ lsn: number; position: number; payload: Buffer; batch: number }> = [];
            for (const [batchIndex, batch] of batches.entries()) {
              for (const bytes of batch) {
                const payload = Buffer.from(bytes);
                expected.push({ ...log.append(payload), payload, batch: batchIndex });
              }
              log.commitSync();
            }
            if (stageUncommittedTail) log.append(Buffer.from("dropped"));
            log.close();

            log = SegmentLog.open({ ...options, verifyChainOnOpen: true });
            expect(log.recovery.truncation).toBeNull();
            expect(log.lastLsn).toBe(expected.length);
            const frames = [...log.frames(0, { verify: "chain", copyPayloads: true })];
            expect(frames.map((f) => [f.lsn, f.position])).toEqual(expected.map((e) => [e.lsn, e.position]));
            frames.forEach((frame, i) => expect(frame.payload.equals(expected[i]!.payload)).toBe(true));
            for (const e of expected) expect(log.readAt(e.position).payload.equals(e.payload)).toBe(true);
            const chain = expected.reduce<Buffer>((c, e) => nextChainHash(c, e.payload), genesisChainHash());
            expect(log.chainHead.equals(chain)).toBe(true);
            // A batch never spans segments; a segment exceeds the size limit only when it holds
            // exactly one batch (one batch larger than a segment goes alone into a fresh one).
            const segmentOfBatch = new Map<number, string>();
            for (const file of log.segmentFiles()) {
              const base = Number(path.basename(file).slice(0, 20));
              const sizeBytes = fs.statSync(file).size;
              const inside = expected.filter((e) => e.position >= base && e.position < base + sizeBytes - SEGMENT_HEADER_BYTES);
              const batchesInside = new Set(inside.map((e) => e.batch));
              for (const batch of batchesInside) {
                expect(segmentOfBatch.has(batch)).toBe(false);
                segmentOfBatch.set(batch, file);
              }
              if (sizeBytes > segmentSizeBytes) expect(batchesInside.size).toBe(1);
            }
            expect(segmentOfBatch.size).toBe(batches.length);
            log.close();
          } finally {
            fs.rmSync(dir, { recursive: true, force: true });
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
