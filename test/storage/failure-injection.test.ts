import * as nodeFs from "node:fs";
import { describe, expect, it } from "vitest";
import { LogFailedError, SegmentLog, StorageLimitError } from "../../storage/index.js";
import { fsWith, payloadFor, tempDir } from "./helpers.js";

function eio(call: string): Error {
  return Object.assign(new Error(`EIO: i/o error, ${call}`), { code: "EIO" });
}

describe("failure semantics", () => {
  it("a failing fdatasync fails the commit and the log stays failed; fdatasync is never retried", () => {
    const dir = tempDir("fail");
    let failSync = false;
    let syncCalls = 0;
    const log = SegmentLog.open({
      dir,
      fs: fsWith({
        fdatasyncSync: (fd) => {
          syncCalls++;
          if (failSync) throw eio("fdatasync");
          nodeFs.fdatasyncSync(fd);
        },
      }),
    });
    log.append(Buffer.from("ok"));
    log.commitSync();
    expect(syncCalls).toBe(1);

    failSync = true;
    log.append(Buffer.from("doomed"));
    expect(() => log.commitSync()).toThrow(LogFailedError);
    expect(syncCalls).toBe(2);
    expect(log.failed).toBe(true);
    expect(log.lastLsn).toBe(1); // never reported as committed
    expect((log.failure as Error).message).toMatch(/EIO/);

    failSync = false; // even if the disk "recovers", the log does not
    expect(() => log.append(Buffer.from("later"))).toThrow(LogFailedError);
    expect(() => log.commitSync()).toThrow(LogFailedError);
    expect(syncCalls).toBe(2);
    // Durable frames remain readable; close works.
    expect(log.readAt(0).payload.toString()).toBe("ok");
    log.close();

    // Reopen: the failed commit's outcome is indeterminate (its bytes did reach the page cache here).
    const reopened = SegmentLog.open({ dir });
    expect([1, 2]).toContain(reopened.lastLsn);
    expect(reopened.verify().ok).toBe(true);
    reopened.close();
  });

  it("a short write fails the log; reopen truncates the torn bytes", () => {
    const dir = tempDir("fail");
    let shortWrite = false;
    const log = SegmentLog.open({
      dir,
      fs: fsWith({
        writeSync: (fd, buffer, offset, length, position) => {
          const realLength = shortWrite ? Math.floor(length / 2) : length;
          return realWrite(fd, buffer, offset, realLength, position);
        },
      }),
    });
    log.append(payloadFor(1, 100));
    log.commitSync();
    shortWrite = true;
    for (let i = 0; i < 4; i++) log.append(payloadFor(2 + i, 100)); // 4 x 148 bytes, half = 296 = 2 frames
    expect(() => log.commitSync()).toThrow(/short write/);
    expect(log.failed).toBe(true);
    expect(() => log.append(Buffer.alloc(1))).toThrow(LogFailedError);
    log.close();

    const reopened = SegmentLog.open({ dir });
    // The first half held two whole frames: they are valid bytes, so they survive (never acked).
    expect(reopened.lastLsn).toBe(3);
    expect(reopened.recovery.truncation).toBeNull();
    reopened.close();
  });

  it("a short write that tears a frame is truncated on reopen", () => {
    const dir = tempDir("fail");
    let tear = false;
    const log = SegmentLog.open({
      dir,
      fs: fsWith({
        writeSync: (fd, buffer, offset, length, position) =>
          realWrite(fd, buffer, offset, tear ? length - 10 : length, position),
      }),
    });
    tear = true;
    log.append(payloadFor(1, 100));
    expect(() => log.commitSync()).toThrow(LogFailedError);
    log.close();
    const reopened = SegmentLog.open({ dir });
    expect(reopened.lastLsn).toBe(0);
    expect(reopened.recovery.truncation).toMatchObject({ truncatedBytes: 138, truncatedAtPosition: 0 });
    reopened.close();
  });

  it("a failing write (ENOSPC) fails the log", () => {
    const dir = tempDir("fail");
    let full = false;
    const log = SegmentLog.open({
      dir,
      fs: fsWith({
        writeSync: (fd, buffer, offset, length, position) => {
          if (full) throw Object.assign(new Error("ENOSPC: no space left on device"), { code: "ENOSPC" });
          return realWrite(fd, buffer, offset, length, position);
        },
      }),
    });
    full = true;
    log.append(Buffer.from("x"));
    expect(() => log.commitSync()).toThrow(/ENOSPC/);
    expect(() => log.commitSync()).toThrow(LogFailedError);
    log.close();
  });

  it("a failure while rotating fails the log; reopen cleans up the temp file", () => {
    const dir = tempDir("fail");
    let failRename = false;
    const log = SegmentLog.open({
      dir,
      segmentSizeBytes: 200,
      fs: fsWith({
        renameSync: (from, to) => {
          if (failRename) throw eio("rename");
          realRename(from, to);
        },
      }),
    });
    log.append(payloadFor(1, 100));
    log.commitSync();
    failRename = true;
    log.append(payloadFor(2, 100)); // does not fit: rotation needed
    expect(() => log.commitSync()).toThrow(LogFailedError);
    log.close();
    const reopened = SegmentLog.open({ dir, segmentSizeBytes: 200 });
    expect(reopened.recovery.removedTempFiles).toEqual(["00000000000000000148.seg.tmp"]);
    expect(reopened.lastLsn).toBe(1);
    reopened.append(payloadFor(2, 100));
    reopened.commitSync();
    expect(reopened.stats.segments).toBe(2);
    reopened.close();
  });

  it("limit errors do not fail the log", () => {
    const dir = tempDir("fail");
    const log = SegmentLog.open({ dir, maxPayloadBytes: 10 });
    expect(() => log.append(Buffer.alloc(11))).toThrow(StorageLimitError);
    expect(log.failed).toBe(false);
    log.append(Buffer.alloc(10));
    expect(log.commitSync().frames).toBe(1);
    log.close();
  });
});

function realWrite(fd: number, buffer: Uint8Array, offset: number, length: number, position: number): number {
  return nodeFs.writeSync(fd, buffer, offset, length, position);
}
function realRename(from: string, to: string): void {
  nodeFs.renameSync(from, to);
}
