import { readdirSync } from "node:fs";
import * as path from "node:path";
import { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { FRAME_HEADER_BYTES, LogClosedError, LogCorruptError, LogView, SEGMENT_HEADER_BYTES, SegmentLog } from "../../storage/index.js";
import { flipByte, payloadFor, tempDir } from "./helpers.js";

/** A log over several small segments, still open for writing. */
function openWrittenLog(frames: number): { log: SegmentLog; positions: number[]; payloads: Buffer[] } {
  const log = SegmentLog.open({ dir: tempDir("log-view"), segmentSizeBytes: 8 * 1024 });
  const positions: number[] = [];
  const payloads: Buffer[] = [];
  for (let i = 0; i < frames; i++) {
    const payload = payloadFor(i, i % 31 === 0 ? 2_500 : 90 + (i % 11) * 13);
    payloads.push(payload);
    positions.push(log.append(payload).position);
    if (i % 5 === 4) log.commitSync();
  }
  log.commitSync();
  return { log, positions, payloads };
}

describe("LogView: a log's durable extent read without its writer", () => {
  it("reads every frame of the view exactly as the log does, while the writer goes on appending", () => {
    const { log, positions, payloads } = openWrittenLog(300);
    try {
      expect(log.stats.segments).toBeGreaterThan(3);
      // Plain data: what a thread receives is a structured clone.
      const view = new LogView(structuredClone(log.readView()));
      for (let i = 300; i < 340; i++) {
        log.append(payloadFor(i, 200));
        log.commitSync();
      }
      try {
        positions.forEach((position, i) => {
          const fromView = view.readAt(position);
          const fromLog = log.readAt(position);
          expect(fromView.lsn).toBe(i + 1);
          expect(fromView.payload.equals(payloads[i] as Buffer)).toBe(true);
          expect(fromView.chain.equals(fromLog.chain)).toBe(true);
        });
        const seen: number[] = [];
        view.readManyAt(positions, (frame, index) => {
          expect(frame.payload.equals(payloads[index] as Buffer)).toBe(true);
          seen.push(frame.lsn);
        });
        expect(seen).toEqual(positions.map((_, i) => i + 1));
        // Frames committed after the view was taken are outside it.
        expect(() => view.readAt(view.endPosition)).toThrow(RangeError);
        expect(log.readAt(view.endPosition).lsn).toBe(301);
      } finally {
        view.close();
      }
      expect(() => view.readAt(positions[0] as number)).toThrow(LogClosedError);
    } finally {
      log.close();
    }
  });

  it("reads on from any frame boundary (framesFrom), in this segment or at the start of the next, and refuses a position that is not one", () => {
    const { log, positions, payloads } = openWrittenLog(120);
    const readView = log.readView();
    const segmentStarts = new Set(readView.segments.map((segment) => segment.basePositionBytes));
    const view = new LogView(readView);
    log.close();
    try {
      let boundaries = 0;
      for (let k = 0; k <= positions.length; k += 1) {
        // Frame k + 1 starts at positions[k]; past the last frame, the view's end (nothing to read).
        const from = k < positions.length ? (positions[k] as number) : readView.endPosition;
        if (segmentStarts.has(from)) boundaries += 1;
        const read = [...view.framesFrom({ position: from, lsn: k + 1 })].map((frame) => [frame.lsn, Buffer.from(frame.payload)]);
        expect(read).toEqual(payloads.slice(k).map((payload, i) => [k + 1 + i, payload]));
      }
      expect(boundaries).toBeGreaterThan(3);
      expect([...view.framesFrom({ position: positions[7] as number, lsn: 8 }, 3)].map((frame) => frame.lsn)).toEqual([8, 9, 10]);
      // Inside a frame, or a frame boundary with another lsn: refused, not misread.
      expect(() => [...view.framesFrom({ position: (positions[7] as number) + 5, lsn: 8 })]).toThrow(LogCorruptError);
      expect(() => [...view.framesFrom({ position: positions[7] as number, lsn: 9 })]).toThrow(LogCorruptError);
    } finally {
      view.close();
    }
  });

  it("refuses a damaged frame and a position that is not a frame boundary, naming the file", () => {
    const { log, positions } = openWrittenLog(60);
    const view = new LogView(log.readView());
    const dir = log.dir;
    log.close();
    try {
      expect(() => view.readAt((positions[3] as number) + 1)).toThrow(LogCorruptError);
      const first = readdirSync(dir).filter((name) => name.endsWith(".seg")).sort()[0] as string;
      flipByte(path.join(dir, first), SEGMENT_HEADER_BYTES + (positions[2] as number) + FRAME_HEADER_BYTES + 3);
      expect(() => view.readAt(positions[2] as number)).toThrow(/crc32c mismatch/);
      expect(() => view.readManyAt(positions.slice(0, 5), () => undefined)).toThrow(LogCorruptError);
      expect(view.readAt(positions[1] as number).lsn).toBe(2);
    } finally {
      view.close();
    }
  });

  it("is read on another thread", async () => {
    const { log, positions, payloads } = openWrittenLog(120);
    try {
      const storageUrl = new URL("../../storage/index.ts", import.meta.url).href;
      const code = `
        const { parentPort, workerData } = require("node:worker_threads");
        import("tsx/esm/api").then(({ register }) => { register(); return import(${JSON.stringify(storageUrl)}); }).then(({ LogView }) => {
          const view = new LogView(workerData.view);
          const payloads = [];
          view.readManyAt(workerData.positions, (frame) => payloads.push(frame.payload));
          view.close();
          parentPort.postMessage(payloads);
        });`;
      const worker = new Worker(code, { eval: true, workerData: { view: log.readView(), positions } });
      const read = await new Promise<Uint8Array[]>((resolve, reject) => {
        worker.once("message", resolve);
        worker.once("error", reject);
      });
      await worker.terminate();
      expect(read.length).toBe(payloads.length);
      read.forEach((payload, i) => expect(Buffer.from(payload).equals(payloads[i] as Buffer)).toBe(true));
    } finally {
      log.close();
    }
  });
});
