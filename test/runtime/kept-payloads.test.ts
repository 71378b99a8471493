import { describe, expect, it } from "vitest";
import { KeptPayloads } from "../../engine/replay/kept-payloads.js";

describe("KeptPayloads", () => {
  it("returns each kept payload's bytes by its offset, across slabs", () => {
    const kept = new KeptPayloads(40 * 1024 * 1024);
    const big = Buffer.alloc(9 * 1024 * 1024, 7); // two of these do not fit one 16 MiB slab
    const offsets = [kept.keep(Buffer.from("first")), kept.keep(big), kept.keep(big), kept.keep(new Uint8Array(0)), kept.keep(Buffer.from("last"))];
    expect(offsets.every((offset) => offset >= 0)).toBe(true);
    expect(kept.payloadAt(offsets[0] as number).toString()).toBe("first");
    expect(kept.payloadAt(offsets[1] as number).equals(big)).toBe(true);
    expect(kept.payloadAt(offsets[2] as number).equals(big)).toBe(true);
    expect(kept.payloadAt(offsets[3] as number).length).toBe(0);
    expect(kept.payloadAt(offsets[4] as number).toString()).toBe("last");
  });

  it("copies: a payload changed after keep() is kept as it was", () => {
    const kept = new KeptPayloads();
    const payload = Buffer.from("abc");
    const offset = kept.keep(payload);
    payload[0] = 0x7a;
    expect(kept.payloadAt(offset).toString()).toBe("abc");
  });

  it("keeps nothing more once the budget is spent, even payloads that would still fit", () => {
    const kept = new KeptPayloads(4 + 10 + 4 + 3);
    expect(kept.keep(Buffer.alloc(10))).toBeGreaterThanOrEqual(0);
    expect(kept.keep(Buffer.alloc(5))).toBe(-1); // 4 + 5 bytes do not fit the 7 left
    expect(kept.keep(Buffer.alloc(1))).toBe(-1); // would fit, but what is kept stays a prefix
  });

  it("refuses a budget that is not a non-negative integer", () => {
    expect(() => new KeptPayloads(-1)).toThrow(RangeError);
    expect(() => new KeptPayloads(1.5)).toThrow(RangeError);
  });
});
