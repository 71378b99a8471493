import { describe, expect, it } from "vitest";
import { IdArena, idHash } from "../../engine/store/id-arena.js";

const IDS = ["p1", "participant-123456", "ü-Latin-1-\u00ff", "Ω", "参加者-\u{1F600}", "lone-\ud800", "x".repeat(128), "\u0100".repeat(128)];

describe("id arena (engine/store/id-arena.ts)", () => {
  it("gives back every id exactly, one byte per unit for Latin-1 and two otherwise", () => {
    const arena = new IdArena();
    const stored = IDS.map((id) => ({ id, ...arena.append(id) }));
    for (const { id, at, units } of stored) {
      expect(arena.read(at, units)).toBe(id);
      expect(units).toBe([...id].every((c) => c.charCodeAt(0) <= 0xff) && !/[\ud800-\udfff]/.test(id) ? id.length : -id.length);
      expect(arena.equals(at, units, id)).toBe(true);
      expect(arena.hash(at, units)).toBe(idHash(id));
      for (const other of IDS) if (other !== id) expect(arena.equals(at, units, other)).toBe(false);
    }
    expect(arena.sizeBytes).toBe(stored.reduce((sum, { units }) => sum + (units < 0 ? -units * 2 : units), 0));
  });

  it("round-trips through an image (a copy: later appends do not touch the image)", () => {
    const arena = new IdArena();
    const stored = IDS.map((id) => ({ id, ...arena.append(id) }));
    const image = arena.image();
    const copy = IdArena.fromImage(image);
    arena.append("after");
    copy.append("another");
    for (const { id, at, units } of stored) expect(copy.read(at, units)).toBe(id);
    expect(Buffer.from(image)).toEqual(Buffer.from(IdArena.fromImage(image).image()));
  });

  it("checks ranges read from a file, and refuses ids outside 1–128 units", () => {
    const arena = new IdArena();
    const { at, units } = arena.append("abc");
    expect(arena.holds(at, units)).toBe(true);
    expect(arena.holds(at, 4)).toBe(false);
    expect(arena.holds(at + 1, 3)).toBe(false);
    expect(arena.holds(0, 0)).toBe(false);
    expect(arena.holds(0, -2)).toBe(false); // 4 bytes, 3 in use
    expect(arena.holds(0.5, 1)).toBe(false);
    expect(() => arena.append("")).toThrow("stored ids are 1 to 128 code units");
    expect(() => arena.append("x".repeat(129))).toThrow("stored ids are 1 to 128 code units");
  });
});
