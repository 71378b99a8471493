import * as fs from "node:fs";
import { describe, expect, it } from "vitest";
import { LogCorruptError, SEGMENT_HEADER_BYTES, SegmentLog, nextChainHash } from "../../storage/index.js";
import { rewriteFrameCrc } from "../../storage/frame.js";
import { editPayloadKeepCrcValid, payloadFor, tempDir } from "./helpers.js";

const PAYLOAD_BYTES = 40;
const FRAME_BYTES = 48 + PAYLOAD_BYTES;

/** One segment, 6 frames of 40 bytes; returns the dir, segment path and final chain head. */
function buildLog(): { dir: string; segment: string; head: Buffer } {
  const dir = tempDir("tamper");
  const log = SegmentLog.open({ dir });
  for (let i = 0; i < 6; i++) log.append(payloadFor(i, PAYLOAD_BYTES));
  log.commitSync();
  const result = { dir, segment: log.segmentFiles()[0] as string, head: log.chainHead };
  log.close();
  return result;
}

const frameStart = (index: number): number => SEGMENT_HEADER_BYTES + index * FRAME_BYTES;

describe("hash chain tamper evidence", () => {
  it("detects a payload edit whose CRC was recomputed", () => {
    const { dir, segment } = buildLog();
    editPayloadKeepCrcValid(segment, frameStart(2), 5);

    // CRC and lsn checks pass, so a CRC-only open accepts the edited log...
    const log = SegmentLog.open({ dir });
    expect(log.lastLsn).toBe(6);
    expect([...log.frames(0, { verify: "crc" })].length).toBe(6);
    // ...but the chain does not.
    const result = log.verify();
    expect(result.ok).toBe(false);
    if (result.ok) throw new Error("unreachable");
    expect(result.framesVerified).toBe(2);
    expect(result.error.filePath).toBe(segment);
    expect(result.error.fileOffsetBytes).toBe(frameStart(2));
    expect(result.error.message).toMatch(/chain-mismatch.*lsn 3/);
    expect(() => [...log.frames(0, { verify: "chain" })]).toThrow(LogCorruptError);
    log.close();

    // A chain-verifying open refuses (not a torn tail: the CRC matched).
    expect(() => SegmentLog.open({ dir, verifyChainOnOpen: true })).toThrow(/chain-mismatch/);
  });

  it("detects an edit even when the edited frame's chain field is recomputed too", () => {
    const { dir, segment } = buildLog();
    const content = fs.readFileSync(segment);
    const at = frameStart(2);
    content[at + 48] = (content[at + 48] as number) ^ 0xff;
    const previousChain = content.subarray(frameStart(1) + 16, frameStart(1) + 48);
    nextChainHash(previousChain, content.subarray(at + 48, at + FRAME_BYTES)).copy(content, at + 16);
    rewriteFrameCrc(content, at, FRAME_BYTES);
    fs.writeFileSync(segment, content);

    const log = SegmentLog.open({ dir });
    const result = log.verify();
    expect(result.ok).toBe(false);
    if (result.ok) throw new Error("unreachable");
    expect(result.error.fileOffsetBytes).toBe(frameStart(3)); // the next frame no longer links
    log.close();
  });

  it("a fully rewritten chain verifies but produces a different chain head", () => {
    const { dir, segment, head } = buildLog();
    const content = fs.readFileSync(segment);
    content[frameStart(2) + 48] = (content[frameStart(2) + 48] as number) ^ 0xff;
    for (let i = 2; i < 6; i++) {
      const at = frameStart(i);
      const previousChain = content.subarray(frameStart(i - 1) + 16, frameStart(i - 1) + 48);
      nextChainHash(previousChain, content.subarray(at + 48, at + FRAME_BYTES)).copy(content, at + 16);
      rewriteFrameCrc(content, at, FRAME_BYTES);
    }
    fs.writeFileSync(segment, content);
    const log = SegmentLog.open({ dir, verifyChainOnOpen: true });
    const result = log.verify();
    expect(result.ok).toBe(true);
    // Only a chain head recorded elsewhere (snapshot, replica, receipt) exposes this rewrite.
    expect(log.chainHead.equals(head)).toBe(false);
    log.close();
  });

  it("chain verification works across segments and from a mid-log start", () => {
    const dir = tempDir("tamper");
    const log = SegmentLog.open({ dir, segmentSizeBytes: 300 });
    for (let i = 0; i < 12; i++) {
      log.append(payloadFor(i, PAYLOAD_BYTES));
      log.commitSync();
    }
    expect(log.stats.segments).toBeGreaterThan(3);
    expect(log.verify()).toMatchObject({ ok: true, framesVerified: 12, lastLsn: 12 });
    for (let from = 0; from < 12; from++) expect([...log.frames(from, { verify: "chain" })].length).toBe(12 - from);
    const files = log.segmentFiles();
    log.close();
    editPayloadKeepCrcValid(files[2] as string, SEGMENT_HEADER_BYTES, 0);
    const reopened = SegmentLog.open({ dir, segmentSizeBytes: 300 });
    const result = reopened.verify();
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.filePath).toBe(files[2]);
    reopened.close();
  });
});
