import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { idHash as principalHash } from "../../engine/store/id-arena.js";
import { PrincipalIndex, stringKeys } from "../../engine/store/principal-index.js";

/** Keys live in a row array, as a market's participants do; the index only holds ordinals. */
function indexOverRows(): { index: PrincipalIndex; rows: string[] } {
  const rows: string[] = [];
  return { index: new PrincipalIndex(stringKeys((ordinal) => rows[ordinal - 1] as string)), rows };
}

describe("principal index (engine/store/principal-index.ts)", () => {
  it("agrees with a Map under random adds and deletes, through growth and backward-shift deletion", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 400 })), { minLength: 1, maxLength: 3000 }),
        (operations) => {
          const { index, rows } = indexOverRows();
          const model = new Map<string, number>();
          for (const [add, n] of operations) {
            const key = n % 7 === 0 ? `参加者-${n}-\u{1F600}` : `p${n}`;
            if (add && !model.has(key)) {
              rows.push(key);
              index.add(key, rows.length);
              model.set(key, rows.length);
            } else if (!add) {
              expect(index.delete(key)).toBe(model.delete(key));
            }
            expect(index.size).toBe(model.size);
          }
          for (let n = 0; n <= 400; n += 1) {
            for (const key of [`p${n}`, `参加者-${n}-\u{1F600}`]) expect(index.get(key)).toBe(model.get(key));
          }
          expect(index.entries()).toEqual([...model].sort((a, b) => a[1] - b[1]));
        },
      ),
      { numRuns: 200 },
    );
  });

  it("keeps every key reachable when many share a probe run (equal low hash bits)", () => {
    const { index, rows } = indexOverRows();
    // Keys whose hashes agree in their low 10 bits land in one run in tables up to 1,024 slots.
    const colliding: string[] = [];
    const target = principalHash("seed") & 1023;
    for (let n = 0; colliding.length < 40; n += 1) if ((principalHash(`k${n}`) & 1023) === target) colliding.push(`k${n}`);
    for (const key of colliding) {
      rows.push(key);
      index.add(key, rows.length);
    }
    // Delete every other one, from the middle of the run outwards, and check the rest are found.
    for (let i = 1; i < colliding.length; i += 2) expect(index.delete(colliding[i] as string)).toBe(true);
    colliding.forEach((key, i) => expect(index.get(key)).toBe(i % 2 === 0 ? i + 1 : undefined));
    expect(index.size).toBe(20);
  });

  it("refuses a principal twice and ordinals outside int32", () => {
    const { index, rows } = indexOverRows();
    rows.push("alice");
    index.add("alice", 1);
    expect(() => index.add("alice", 2)).toThrow("a principal is indexed once");
    expect(() => index.add("bob", 0)).toThrow("principal ordinals are positive int32");
    expect(() => index.add("bob", 2 ** 31)).toThrow("principal ordinals are positive int32");
    expect(index.delete("bob")).toBe(false);
  });

  it("hashes the same key the same way (determinism across builds)", () => {
    expect(principalHash("participant-123")).toBe(principalHash(`participant-${123}`));
    expect(principalHash("a")).not.toBe(principalHash("b"));
  });
});

describe("capacity growth (engine/store/capacity.ts)", () => {
  it("grows ×4 below the threshold and ×2 above it, always to a fit", async () => {
    const { grownCapacity } = await import("../../engine/store/capacity.js");
    expect(grownCapacity(0, 1, 4, 256)).toBe(4);
    expect(grownCapacity(4, 5, 4, 256)).toBe(16);
    expect(grownCapacity(64, 65, 4, 256)).toBe(256);
    expect(grownCapacity(256, 257, 4, 256)).toBe(512);
    expect(grownCapacity(16, 1000, 4, 256)).toBe(1024); // 16 → 64 → 256 → 512 → 1024
    expect(() => grownCapacity(16, 16, 4, 256)).toThrow("growth is asked for only when needed");
  });

  it("sizes a rebuilt index once for the expected entries", () => {
    const rows = Array.from({ length: 5000 }, (_, i) => `p${i}`);
    const index = new PrincipalIndex(stringKeys((ordinal) => rows[ordinal - 1] as string), rows.length);
    rows.forEach((key, i) => index.add(key, i + 1));
    expect(index.size).toBe(5000);
    expect(index.get("p4999")).toBe(5000);
    expect(new PrincipalIndex(stringKeys(() => ""), 8).size).toBe(0); // exactly the first size
  });
});
