/**
 * The file journal's snapshots are written off the calling thread (decision I62): the position is
 * taken when asked, the file is written while the caller goes on appending, and writes run one at a
 * time in the order asked. Real files; failures injected through the journal's StorageFs.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FileJournal } from "../../engine/journal/file-journal.js";
import { nodeStorageFs, type StorageFs } from "../../storage/index.js";

const dirs: string[] = [];
const journals: FileJournal[] = [];

function openJournal(dir: string, fs?: StorageFs): FileJournal {
  const journal = FileJournal.open({ dir, ...(fs === undefined ? {} : { fs }) });
  journals.push(journal);
  return journal;
}

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "file-journal-snapshots-"));
  dirs.push(dir);
  return dir;
}

afterEach(async () => {
  for (const journal of journals.splice(0)) await journal.close().catch(() => undefined);
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const text = (payload: Uint8Array | undefined): string | undefined => (payload === undefined ? undefined : new TextDecoder().decode(payload));

describe("FileJournal snapshots", () => {
  it("takes the position when asked, goes on appending while it writes, and writes in the order asked", async () => {
    const dir = tempDir();
    const journal = openJournal(dir);
    await journal.append([bytes("a"), bytes("b")]);
    const first = journal.writeSnapshot(bytes("state through 2"), 2);
    await journal.append([bytes("c")]);
    const second = journal.writeSnapshot(bytes("state through 3"), 2);
    await journal.append([bytes("d")]);
    expect((await first).sequence).toBe(2);
    expect((await second).sequence).toBe(3);
    await journal.close();
    const reopened = openJournal(dir);
    expect(reopened.lastSequence).toBe(4);
    expect(reopened.snapshot?.sequence).toBe(3);
    expect(text(reopened.snapshot?.payload)).toBe("state through 3");
    expect(fs.readdirSync(path.join(dir, "snapshots")).sort()).toEqual(["snapshot-00000000000000000002.snap", "snapshot-00000000000000000003.snap"]);
  });

  it("rejects a snapshot whose write fails, and writes the next one", async () => {
    const dir = tempDir();
    let failFsync = false;
    const journal = openJournal(dir, {
      ...nodeStorageFs,
      fsync: async (fd) => {
        if (failFsync) throw new Error("EIO: injected fsync failure");
        await nodeStorageFs.fsync(fd);
      },
    });
    await journal.append([bytes("a")]);
    failFsync = true;
    await expect(journal.writeSnapshot(bytes("lost"), 2)).rejects.toThrow(/EIO: injected fsync failure/);
    failFsync = false;
    await journal.append([bytes("b")]);
    expect((await journal.writeSnapshot(bytes("kept"), 2)).sequence).toBe(2);
    await journal.close();
    const reopened = openJournal(dir);
    expect(text(reopened.snapshot?.payload)).toBe("kept");
    // The failed write's temp file was removed by the next write's prune.
    expect(fs.readdirSync(path.join(dir, "snapshots"))).toEqual(["snapshot-00000000000000000002.snap"]);
  });

  it("closes once the snapshot under way is written, and refuses what is asked after close", async () => {
    const dir = tempDir();
    const journal = openJournal(dir);
    await journal.append([bytes("a")]);
    const written = journal.writeSnapshot(bytes("state through 1"), 2);
    const closed = journal.close();
    await expect(journal.writeSnapshot(bytes("too late"), 2)).rejects.toThrow(/closed/);
    await expect(journal.append([bytes("b")])).rejects.toThrow(/closed/);
    await closed;
    expect((await written).sequence).toBe(1);
    const reopened = openJournal(dir);
    expect(reopened.lastSequence).toBe(1);
    expect(text(reopened.snapshot?.payload)).toBe("state through 1");
  });
});
