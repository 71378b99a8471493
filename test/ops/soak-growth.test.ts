/** bench:soak's flat check (bench/soak/growth.ts): growth over the last half, read off a fitted line. */
import { describe, expect, it } from "vitest";
import { lastHalfGrowth } from "../../bench/soak/growth.js";

const times = Array.from({ length: 61 }, (_, i) => i * 10);

describe("lastHalfGrowth", () => {
  it("reads a straight line exactly: 100 → 160 over the run is 130 → 160 over its last half", () => {
    const growth = lastHalfGrowth(times, times.map((t) => 100 + t / 10));
    expect(growth.samples).toBe(31);
    expect(growth.fittedStart).toBeCloseTo(130, 9);
    expect(growth.fittedEnd).toBeCloseTo(160, 9);
    expect(growth.fittedGrowth).toBeCloseTo(30 / 130, 9);
    expect(growth.endpointGrowth).toBeCloseTo(30 / 130, 9);
  });

  it("passes a flat saw-tooth that ends on a peak, which its end points would fail", () => {
    // A collector's saw-tooth over 200: up 10 a sample for 5 samples, then back down; the last
    // sample is a peak, the first of the last half a trough.
    const values = times.map((_, i) => 200 + 10 * (i % 6)).slice(0, 60);
    const growth = lastHalfGrowth(times.slice(0, 60), values);
    expect(growth.endpointGrowth).toBeCloseTo(250 / 200 - 1, 9);
    expect(Math.abs(growth.fittedGrowth)).toBeLessThan(0.1);
  });

  it("refuses series it cannot fit", () => {
    expect(() => lastHalfGrowth([0], [1])).toThrow(/two samples/);
    expect(() => lastHalfGrowth([0, 1], [1])).toThrow(/one value per time/);
  });
});
