/**
 * The typed-array table of finished idempotency entries (engine/idempotency/settled-table.ts),
 * checked against a Map model: lookups across table growth and arena pages, one- and two-byte
 * identifiers, images that a snapshot writes and a start imports (into an empty table and into one
 * that already holds entries under another seed), and its bounds.
 */
import { describe, expect, it } from "vitest";
import { ARENA_PAGE_BYTES, ENTRIES_PER_PAGE, IDENTITY_OWNER, MAX_ID_UNITS, SettledTable, type SettledTableImage } from "../../engine/idempotency/settled-table.js";
import { IdempotencyIndex } from "../../engine/idempotency/index.js";

interface ModelEntry {
  actorId: string;
  commandId: string;
  fingerprint: string;
  owner: number;
  position: number;
}

/** Deterministic ids: mostly ASCII, some Latin-1, some wider than a byte (CJK, a surrogate pair). */
function entryFor(n: number): ModelEntry {
  const flavour = n % 7;
  const actorId = flavour === 3 ? `acteur-é-${n % 101}` : flavour === 5 ? `参加者-${n % 53}` : `actor-${n % 211}`;
  const commandId = flavour === 6 ? `cmd-😀-${n}` : `command-${n.toString(36)}`;
  return { actorId, commandId, fingerprint: `fp${(n * 2654435761) % 1_000_003}`.padEnd(22, "x"), owner: n % 5, position: n * 37 };
}

function fill(table: SettledTable, from: number, to: number): void {
  for (let n = from; n < to; n += 1) {
    const e = entryFor(n);
    const hash = table.hashOf(e.actorId, e.commandId);
    if (table.find(e.actorId, e.commandId, hash) !== -1) throw new Error(`entry ${n} found before it was inserted`);
    table.insert(e.actorId, e.commandId, hash, e.fingerprint, e.owner, e.position);
  }
}

/** Whether entry `n` is held with its contents (plain checks: an expect per entry costs seconds here). */
function holds(table: SettledTable, n: number): boolean {
  const e = entryFor(n);
  const entry = table.find(e.actorId, e.commandId, table.hashOf(e.actorId, e.commandId));
  return (
    entry >= 0 &&
    table.fingerprintIs(entry, e.fingerprint) &&
    !table.fingerprintIs(entry, e.fingerprint.slice(1)) &&
    table.ownerAt(entry) === e.owner &&
    table.positionAt(entry) === e.position
  );
}

/** The entries in [from, to) that are not held (expected: none). */
function missing(table: SettledTable, from: number, to: number): number[] {
  const absent: number[] = [];
  for (let n = from; n < to; n += 1) if (!holds(table, n)) absent.push(n);
  return absent;
}

function body(image: SettledTableImage): Buffer {
  return Buffer.concat(image.parts);
}

describe("settled idempotency table", () => {
  it("finds every inserted key across table growth and several entry and arena pages, and nothing else", () => {
    const table = new SettledTable(12345);
    const count = 3 * ENTRIES_PER_PAGE + 1000;
    fill(table, 0, count);
    expect(table.size).toBe(count);
    expect(missing(table, 0, count)).toEqual([]);
    // Keys that differ only in where the separator falls, or by one unit, are different keys.
    for (const [a, c] of [["actor-1", "command-"], ["actor-", "1command-1"], ["actor-10", "command-a"], ["参加者-1", "command-1"]] as const) {
      expect(table.find(a, c, table.hashOf(a, c))).toBe(-1);
    }
    expect(table.hashOf("ab", "c")).not.toBe(table.hashOf("a", "bc"));
  });

  it("stores the longest identifiers and two-byte ones, and refuses longer ones and wide fingerprints", () => {
    const table = new SettledTable(7);
    const longActor = "a".repeat(MAX_ID_UNITS);
    const longWide = "漢".repeat(MAX_ID_UNITS);
    table.insert(longActor, longWide, table.hashOf(longActor, longWide), "f", IDENTITY_OWNER, 2 ** 53 - 1);
    const entry = table.find(longActor, longWide, table.hashOf(longActor, longWide));
    expect(entry).toBe(0);
    expect(table.positionAt(entry)).toBe(2 ** 53 - 1);
    expect(table.ownerAt(entry)).toBe(IDENTITY_OWNER);
    expect(table.find(longActor, "漢".repeat(MAX_ID_UNITS - 1) + "字", table.hashOf(longActor, "漢".repeat(MAX_ID_UNITS - 1) + "字"))).toBe(-1);
    const tooLong = "a".repeat(MAX_ID_UNITS + 1);
    expect(() => table.insert(tooLong, "c", table.hashOf(tooLong, "c"), "f", 0, 1)).toThrow(/1-128/);
    expect(() => table.insert("a", "", table.hashOf("a", ""), "f", 0, 1)).toThrow(/1-128/);
    expect(() => table.insert("a", "c", table.hashOf("a", "c"), "f漢", 0, 1)).toThrow(/fingerprint/);
    expect(() => table.insert("a", "c", table.hashOf("a", "c"), "f", 0, 2 ** 53)).toThrow(/position/);
    expect(table.size).toBe(1);
  });

  it("round-trips through an image into an empty table with another seed (adopted whole, aligned or not)", () => {
    const source = new SettledTable(1);
    const count = ENTRIES_PER_PAGE + 500;
    fill(source, 0, count);
    const image = source.image();
    const unaligned = Buffer.alloc(body(image).length + 1).subarray(1);
    body(image).copy(unaligned);
    for (const bytes of [body(image), unaligned]) {
      const target = new SettledTable(2);
      expect(target.importImage(image, bytes)).toBe(count);
      expect(target.hashSeed).toBe(1);
      expect(target.size).toBe(count);
      expect(missing(target, 0, count)).toEqual([]);
    }
    const target = new SettledTable(2);
    target.importImage(image, body(image));
    // The imported table goes on taking entries after the imported arena.
    fill(target, count, count + 2000);
    expect(missing(target, 0, count + 2000)).toEqual([]);
  });

  it("imports into a table that already holds entries under another seed (the identity store restores first)", () => {
    const source = new SettledTable(1);
    fill(source, 0, 5000);
    const image = source.image();
    const target = new SettledTable(99);
    fill(target, 4000, 6000); // 1,000 keys overlap the image, with the same contents
    expect(target.importImage(image, body(image))).toBe(4000);
    expect(target.size).toBe(6000);
    expect(missing(target, 0, 6000)).toEqual([]);

    const conflicting = new SettledTable(5);
    const e = entryFor(10);
    conflicting.insert(e.actorId, e.commandId, conflicting.hashOf(e.actorId, e.commandId), "another-fingerprint", e.owner, e.position);
    expect(() => conflicting.importImage(image, body(image))).toThrow(/two different contents/);
  });

  it("an image does not change when entries are added after it is taken", () => {
    const table = new SettledTable(3);
    fill(table, 0, ENTRIES_PER_PAGE + 10);
    const image = table.image();
    const before = body(image);
    fill(table, ENTRIES_PER_PAGE + 10, 2 * ENTRIES_PER_PAGE + 10);
    expect(body(image).equals(before)).toBe(true);
    const again = new SettledTable(4);
    expect(again.importImage(image, before)).toBe(ENTRIES_PER_PAGE + 10);
  });

  it("a continuation carries what was added after an image, across entry and arena pages, and does not change afterwards", () => {
    const source = new SettledTable(7);
    const first = ENTRIES_PER_PAGE + 300;
    fill(source, 0, first);
    const image = source.image();
    const end = { count: image.count, arenaPages: image.arenaPages, lastArenaPageBytes: image.lastArenaPageBytes };
    // Past another entry page and another arena page (the records take about 40 bytes each).
    const second = first + ENTRIES_PER_PAGE + Math.ceil(ARENA_PAGE_BYTES / 40);
    fill(source, first, second);
    const continuation = source.imageSince(end);
    expect(continuation.arenaPages).toBeGreaterThan(image.arenaPages);
    const continuationBody = Buffer.concat(continuation.parts);
    fill(source, second, second + 100);
    expect(Buffer.concat(continuation.parts).equals(continuationBody)).toBe(true);

    const target = new SettledTable(8);
    target.importImage(image, body(image));
    expect(target.appendImage(continuation, continuationBody)).toBe(second - first);
    expect(target.size).toBe(second);
    expect(missing(target, 0, second)).toEqual([]);
    expect(holds(target, second)).toBe(false);
    // It goes on taking entries, and a continuation of the continuation applies after it.
    const next = source.imageSince({ count: continuation.count, arenaPages: continuation.arenaPages, lastArenaPageBytes: continuation.lastArenaPageBytes });
    expect(target.appendImage(next, Buffer.concat(next.parts))).toBe(100);
    fill(target, second + 100, second + 1100);
    expect(missing(target, 0, second + 1100)).toEqual([]);
  });

  it("continues an empty table's image, and refuses a continuation of another image or with a damaged body", () => {
    const source = new SettledTable(9);
    const empty = source.image();
    fill(source, 0, 3000);
    const continuation = source.imageSince({ count: empty.count, arenaPages: empty.arenaPages, lastArenaPageBytes: empty.lastArenaPageBytes });
    const bytes = Buffer.concat(continuation.parts);
    const target = new SettledTable(9);
    expect(target.appendImage(continuation, bytes)).toBe(3000);
    expect(missing(target, 0, 3000)).toEqual([]);

    expect(() => target.appendImage(continuation, bytes)).toThrow(/continues another image/);
    expect(() => new SettledTable(10).appendImage(continuation, bytes)).toThrow(/another hash seed/);
    expect(() => new SettledTable(9).appendImage(continuation, bytes.subarray(1))).toThrow(/bytes, expected/);
    const outside = Buffer.from(bytes);
    outside.writeUInt32LE(0xffffff00, 12 * 3000); // the first keyRef, far past the arena
    expect(() => new SettledTable(9).appendImage(continuation, outside)).toThrow(/a key outside the arena/);
  });

  it("refuses an image holding an identity-owned entry (those are rebuilt from the identity log)", () => {
    const source = new SettledTable(1);
    fill(source, 0, 10);
    source.insert("operator", "provision", source.hashOf("operator", "provision"), "fp-identity", IDENTITY_OWNER, 9);
    const image = source.image();
    expect(() => new SettledTable(1).importImage(image, body(image))).toThrow(/identity-owned/);
    const nonEmpty = new SettledTable(1);
    fill(nonEmpty, 100, 101);
    expect(() => nonEmpty.importImage(image, body(image))).toThrow(/identity-owned/);
  });

  it("refuses an image whose body does not match its header, or whose slots do not name its entries", () => {
    const source = new SettledTable(1);
    fill(source, 0, 100);
    const image = source.image();
    const bytes = body(image);
    expect(() => new SettledTable(1).importImage(image, bytes.subarray(0, bytes.length - 1))).toThrow(/expected/);
    expect(() => new SettledTable(1).importImage({ ...image, lastArenaPageBytes: ARENA_PAGE_BYTES + 1 }, bytes)).toThrow(/last page/);
    // Clear one occupied slot: one entry is no longer named by the table.
    const slotsAt = 16 * image.count;
    const broken = Buffer.from(bytes);
    let at = slotsAt;
    while (broken.readUInt32LE(at) === 0) at += 4;
    broken.writeUInt32LE(0, at);
    expect(() => new SettledTable(1).importImage(image, broken)).toThrow(/slots name/);
  });

  it("the index refuses a shard owner that does not fit the owner column", () => {
    const index = new IdempotencyIndex({ seed: 1 });
    expect(() => index.restore("a", "c", "f", { owner: IDENTITY_OWNER, position: 1 })).toThrow(/out of range/);
    index.restore("a", "c", "f", { owner: "identity", position: 1 });
    expect(index.claim("a", "c", "f")).toEqual({ kind: "replay", location: { owner: "identity", position: 1 } });
  });
});
