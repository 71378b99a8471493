import { describe, expect, it } from "vitest";
import { nodeStorageFs, SegmentLog, type StorageFs } from "../../storage/index.js";
import { payloadFor, tempDir } from "./helpers.js";

/** node:fs, counting the fds opened read-only and the fds closed. */
function countingFs(): StorageFs & { readOpens: number; openFds: Set<number> } {
  const openFds = new Set<number>();
  const fsWithCounts = {
    ...nodeStorageFs,
    readOpens: 0,
    openFds,
    openSync(path: string, flags: "r" | "r+" | "w") {
      const fd = nodeStorageFs.openSync(path, flags);
      if (flags === "r") fsWithCounts.readOpens++;
      openFds.add(fd);
      return fd;
    },
    closeSync(fd: number) {
      openFds.delete(fd);
      nodeStorageFs.closeSync(fd);
    },
  };
  return fsWithCounts;
}

describe("readAt on sealed segments", () => {
  it("reads every frame right, keeps at most four sealed segments open, and closes them on close()", () => {
    const dir = tempDir("read-at");
    const writer = SegmentLog.open({ dir, segmentSizeBytes: 4096 });
    const positions: number[] = [];
    for (let i = 0; i < 120; i++) {
      positions.push(writer.append(payloadFor(i, 200)).position);
      writer.commitSync(); // one frame per commit: ~16 frames per 4 KiB segment
    }
    writer.close();

    const fs = countingFs();
    const log = SegmentLog.open({ dir, segmentSizeBytes: 4096, fs });
    expect(log.segmentFiles().length).toBeGreaterThan(6);
    const openAfterOpen = fs.openFds.size; // the active segment
    fs.readOpens = 0;
    // Twice over, first in order (each sealed segment opened once), then interleaved from both ends.
    positions.forEach((position, i) => expect(log.readAt(position).payload.equals(payloadFor(i, 200))).toBe(true));
    const opensInOrder = fs.readOpens;
    expect(opensInOrder).toBe(log.segmentFiles().length - 1);
    for (let k = 0; k < positions.length; k++) {
      const i = k % 2 === 0 ? k / 2 : positions.length - 1 - (k - 1) / 2;
      expect(log.readAt(positions[i] as number).lsn).toBe(i + 1);
      expect(fs.openFds.size).toBeLessThanOrEqual(openAfterOpen + 4);
    }
    log.close();
    expect(fs.openFds.size).toBe(0);
  });
});
