/**
 * Open with a checkpoint (storage/checkpoint.ts): the last segment is read from the checkpoint's
 * frame on, after that frame is checked; a checkpoint that does not check out is ignored and the
 * segment is scanned whole. Either way the open ends in the same state a full scan reaches.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { SegmentLog, type LogCheckpoint } from "../../storage/index.js";
import { payloadFor, tempDir } from "./helpers.js";

const PAYLOAD_BYTES = 40;

/** A log of `frames` frames, one commit each, and the checkpoint taken after frame `at`. */
function build(frames: number, at: number, segmentSizeBytes?: number): { dir: string; checkpoint: LogCheckpoint; positions: number[] } {
  const dir = tempDir("checkpoint");
  const log = SegmentLog.open({ dir, ...(segmentSizeBytes === undefined ? {} : { segmentSizeBytes }) });
  let checkpoint: LogCheckpoint | undefined;
  const positions: number[] = [];
  for (let i = 1; i <= frames; i += 1) {
    const { position } = log.append(payloadFor(i, PAYLOAD_BYTES + (i % 7)));
    positions.push(position);
    log.commitSync();
    expect(log.lastFramePosition).toBe(position);
    if (i === at) checkpoint = { lsn: log.lastLsn, chainHead: log.chainHead, lastFramePosition: log.lastFramePosition, endPosition: log.endPosition };
  }
  log.close();
  if (checkpoint === undefined) throw new Error("no checkpoint");
  return { dir, checkpoint, positions };
}

/** What an open reached, and every frame it serves from `from` on. */
function stateOf(log: SegmentLog, from: number) {
  const frames = [...log.frames(from, { copyPayloads: true })].map((f) => [f.lsn, f.position, f.payload.toString("hex")]);
  return { lastLsn: log.lastLsn, endPosition: log.endPosition, chainHead: log.chainHead.toString("hex"), lastFramePosition: log.lastFramePosition, frames };
}

function openBoth(dir: string, checkpoint: LogCheckpoint, from: number, extra: { segmentSizeBytes?: number } = {}) {
  const full = SegmentLog.open({ dir, ...extra });
  const fullState = stateOf(full, from);
  full.close();
  const fast = SegmentLog.open({ dir, checkpoint, ...extra });
  const fastState = stateOf(fast, from);
  const report = fast.recovery;
  fast.close();
  return { fullState, fastState, report };
}

describe("open with a checkpoint", () => {
  it("reads the last segment from the checkpoint on and reaches the state of a full scan", () => {
    const { dir, checkpoint } = build(50, 30);
    const { fullState, fastState, report } = openBoth(dir, checkpoint, 30);
    expect(report.checkpointRejected).toBeNull();
    expect(report.framesTrustedByCheckpoint).toBe(30);
    expect(report.framesScanned).toBe(20);
    expect(fastState).toEqual(fullState);
    expect(fastState.frames).toHaveLength(20);
    // Reads from before the checkpoint still start at the segment's first frame.
    const again = SegmentLog.open({ dir, checkpoint });
    expect([...again.frames(0)].map((f) => f.lsn)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    again.close();
  });

  it("continues appending after a checkpointed open, and the next open agrees", () => {
    const { dir, checkpoint } = build(10, 10);
    const log = SegmentLog.open({ dir, checkpoint });
    expect(log.recovery.framesScanned).toBe(0);
    expect(log.lastFramePosition).toBe(checkpoint.lastFramePosition);
    log.append(payloadFor(99, PAYLOAD_BYTES));
    log.commitSync();
    const expected = stateOf(log, 0);
    log.close();
    const reopened = SegmentLog.open({ dir });
    expect(stateOf(reopened, 0)).toEqual(expected);
    expect(reopened.verify().ok).toBe(true);
    reopened.close();
  });

  it.each([
    ["a position inside a frame", (c: LogCheckpoint) => ({ ...c, lastFramePosition: c.lastFramePosition + 1 }), "the frame there has another length"],
    ["another frame's position", (c: LogCheckpoint, positions: number[]) => ({ ...c, lastFramePosition: positions[10] as number, endPosition: positions[11] as number }), "the frame there has lsn 11, not 12"],
    ["another lsn", (c: LogCheckpoint) => ({ ...c, lsn: c.lsn + 1 }), "the frame there has lsn 12, not 13"],
    ["a frame shorter than a header", (c: LogCheckpoint) => ({ ...c, endPosition: c.lastFramePosition + 47 }), "its frame extent is not a possible frame"],
    ["another chain head", (c: LogCheckpoint) => ({ ...c, chainHead: Buffer.alloc(32, 7) }), "the frame there has another chain"],
    ["a frame past the log's end", (c: LogCheckpoint) => ({ ...c, lastFramePosition: c.endPosition + 10_000, endPosition: c.endPosition + 10_100 }), "the segment ends before its frame does"],
  ])("ignores a checkpoint naming %s and scans the segment whole", (_what, corrupt: (c: LogCheckpoint, positions: number[]) => LogCheckpoint, reason) => {
    const { dir, checkpoint, positions } = build(20, 12);
    const { fullState, fastState, report } = openBoth(dir, corrupt(checkpoint, positions), 12);
    expect(report.checkpointRejected).toContain(reason);
    expect(report.framesTrustedByCheckpoint).toBe(0);
    expect(report.framesScanned).toBe(20);
    expect(report.truncation).toBeNull();
    expect(fastState).toEqual(fullState);
  });

  it("still truncates a torn tail after the checkpoint", () => {
    const { dir, checkpoint } = build(8, 8);
    const segment = fs.readdirSync(dir).filter((name) => name.endsWith(".seg")).map((name) => path.join(dir, name))[0] as string;
    fs.appendFileSync(segment, Buffer.from([60, 0, 0, 0, 1, 2, 3])); // a frame header cut short
    const log = SegmentLog.open({ dir, checkpoint });
    expect(log.recovery.checkpointRejected).toBeNull();
    expect(log.recovery.truncation?.truncatedBytes).toBe(7);
    expect(log.lastLsn).toBe(8);
    log.close();
  });

  it("is not used when the chain is verified on open, or when it lies before the last segment", () => {
    const { dir, checkpoint } = build(10, 9);
    const verified = SegmentLog.open({ dir, checkpoint, verifyChainOnOpen: true });
    expect(verified.recovery.checkpointRejected).toBe("the chain is verified on open");
    expect(verified.recovery.framesScanned).toBe(10);
    verified.close();

    const segmentSizeBytes = 72 + 10 * 95; // about ten frames per segment
    const rotated = build(30, 3, segmentSizeBytes);
    const log = SegmentLog.open({ dir: rotated.dir, checkpoint: rotated.checkpoint, segmentSizeBytes });
    expect(log.segmentFiles().length).toBeGreaterThan(1);
    expect(log.recovery.checkpointRejected).toBe("it lies before this segment");
    expect(log.lastLsn).toBe(30);
    log.close();
  });
});
