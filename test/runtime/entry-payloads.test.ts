/**
 * Reading a market's entries through its journal for a replay thread (engine/runtime/entry-payloads.ts),
 * on a real file journal in a temp dir. The journal is wrapped only to count what is asked of it
 * (every call goes to the real journal), to see which way the entries were read and that a pass
 * stops at the last wanted entry. test/cluster/shard-on-jetstream.test.ts runs both ways on a
 * real JetStream journal.
 */
import { afterEach, describe, expect, it } from "vitest";
import { FileJournal } from "../../engine/journal/file-journal.js";
import type { Journal, JournalEntry, JournalPosition } from "../../engine/journal/journal.js";
import { firstPayloads, forEachPayload, packPayloads, payloadCount, readPayloads } from "../../engine/runtime/entry-payloads.js";
import { float64Bytes } from "../../engine/runtime/float64-bytes.js";
import { tempDir } from "./support.js";

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()?.();
});

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const text = (payload: Uint8Array): string => new TextDecoder().decode(payload);

/** A real file journal, and what was asked of it. */
function countingJournal(journal: FileJournal) {
  const asked = { reads: 0, entriesHandedOver: 0, readAts: 0 };
  const counted: Journal = {
    get recovery() {
      return journal.recovery;
    },
    get lastSequence() {
      return journal.lastSequence;
    },
    get sizeBytes() {
      return journal.sizeBytes;
    },
    get snapshot() {
      return journal.snapshot;
    },
    append: (payloads, options) => journal.append(payloads, options),
    read: (afterSequence, onEntry) => {
      asked.reads += 1;
      return journal.read(afterSequence, (entry: JournalEntry) => {
        asked.entriesHandedOver += 1;
        onEntry(entry);
      });
    },
    readAt: (position) => {
      asked.readAts += 1;
      return journal.readAt(position);
    },
    readView: () => undefined,
    writeSnapshot: (payload, keep) => journal.writeSnapshot(payload, keep),
    close: () => journal.close(),
  };
  return { counted, asked };
}

/** 400 entries in batches of 10, "entry-1" … "entry-400", and their positions. */
async function journalOf400(): Promise<{ journal: FileJournal; positions: JournalPosition[] }> {
  const dir = tempDir("entry-payloads");
  const journal = FileJournal.open({ dir: dir.dir });
  cleanups.push(() => {
    void journal.close();
    dir.cleanup();
  });
  const positions: JournalPosition[] = [];
  for (let batch = 0; batch < 40; batch++) positions.push(...(await journal.append(Array.from({ length: 10 }, (_, i) => bytes(`entry-${batch * 10 + i + 1}`)))));
  return { journal, positions };
}

const textsOf = (packed: { payloads: Uint8Array; ends: Uint8Array }): string[] => {
  const texts: string[] = [];
  forEachPayload(packed, (payload) => texts.push(text(payload)));
  return texts;
};

describe("readPayloads", () => {
  it("reads densely placed entries in one pass that ends at the last of them", async () => {
    const { journal, positions } = await journalOf400();
    const { counted, asked } = countingJournal(journal);
    // Every other entry from 101 to 199: dense.
    const wanted = positions.filter((_, i) => i >= 100 && i < 200 && i % 2 === 0);
    const packed = await readPayloads(counted, wanted);
    expect(payloadCount(packed)).toBe(50);
    expect(textsOf(packed)).toEqual(wanted.map((_, k) => `entry-${101 + 2 * k}`));
    expect(asked.reads).toBe(1);
    expect(asked.readAts).toBe(2); // the first and the last, for their sequences
    expect(asked.entriesHandedOver).toBe(99); // entries 101…199: not one after the last wanted
  });

  it("reads sparsely placed entries one by one, never what lies between them", async () => {
    const { journal, positions } = await journalOf400();
    const { counted, asked } = countingJournal(journal);
    const wanted = [positions[0], positions[150], positions[399]] as JournalPosition[];
    const packed = await readPayloads(counted, wanted);
    expect(textsOf(packed)).toEqual(["entry-1", "entry-151", "entry-400"]);
    expect(asked.reads).toBe(0);
    expect(asked.readAts).toBe(2 + 3);
  });

  it("reads nothing for no positions, and refuses positions out of the journal's order", async () => {
    const { journal, positions } = await journalOf400();
    const { counted, asked } = countingJournal(journal);
    expect(payloadCount(await readPayloads(counted, []))).toBe(0);
    expect(asked).toEqual({ reads: 0, entriesHandedOver: 0, readAts: 0 });
    const swapped = [positions[10], positions[12], positions[11], positions[13]] as JournalPosition[];
    await expect(readPayloads(counted, swapped)).rejects.toThrow(/no entry at position/);
  });

  it("fails with the journal's error for a position the journal does not hold", async () => {
    const { journal, positions } = await journalOf400();
    const { counted } = countingJournal(journal);
    await expect(readPayloads(counted, [positions[0] as JournalPosition, journal.sizeBytes + 1_000])).rejects.toThrow(RangeError);
  });
});

describe("packed payloads", () => {
  it("hand back each payload, empty ones included, and refuse ends that do not fit the bytes", () => {
    const list = [bytes("a"), new Uint8Array(0), bytes("bcd"), bytes("")];
    const packed = packPayloads(list);
    expect(payloadCount(packed)).toBe(4);
    expect(textsOf(packed)).toEqual(["a", "", "bcd", ""]);
    expect(() => forEachPayload({ payloads: packed.payloads, ends: float64Bytes([1, 0, 4, 4]) }, () => undefined)).toThrow(RangeError);
    expect(() => forEachPayload({ payloads: packed.payloads, ends: float64Bytes([1, 1, 3]) }, () => undefined)).toThrow(/1 bytes after the last payload/);
    expect(() => forEachPayload({ payloads: packed.payloads, ends: float64Bytes([1, 1, 9]) }, () => undefined)).toThrow(RangeError);
  });

  it("give their first n as views: none, some, all; and refuse more than they hold", () => {
    const packed = packPayloads(["a", "", "bcd", "ef"].map(bytes));
    expect(textsOf(firstPayloads(packed, 0))).toEqual([]);
    expect(textsOf(firstPayloads(packed, 3))).toEqual(["a", "", "bcd"]);
    expect(firstPayloads(packed, 3).payloads.buffer).toBe(packed.payloads.buffer);
    expect(firstPayloads(packed, 4)).toBe(packed);
    expect(() => firstPayloads(packed, 5)).toThrow(RangeError);
    expect(() => firstPayloads(packed, -1)).toThrow(RangeError);
  });
});
