import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TimerWheel } from "../../engine/runtime/timer-wheel.js";

describe("TimerWheel", () => {
  it("fires nothing early and everything due, in deadline order with ties in scheduling order", () => {
    const wheel = new TimerWheel<string>(100, 8);
    wheel.schedule(1_050, "b");
    wheel.schedule(1_000, "a");
    wheel.schedule(1_050, "c");
    wheel.schedule(250_000, "far"); // many turns of an 8-slot wheel away
    expect(wheel.takeDue(999)).toEqual([]);
    expect(wheel.takeDue(1_049)).toEqual(["a"]);
    expect(wheel.takeDue(1_050)).toEqual(["b", "c"]);
    expect(wheel.takeDue(249_999)).toEqual([]);
    expect(wheel.size).toBe(1);
    expect(wheel.takeDue(250_000)).toEqual(["far"]);
    expect(wheel.size).toBe(0);
  });

  it("fires a deadline scheduled in the past at the next advance", () => {
    const wheel = new TimerWheel<number>(100, 16);
    wheel.takeDue(10_000);
    wheel.schedule(5_000, 1);
    wheel.schedule(10_000, 2);
    expect(wheel.takeDue(10_000)).toEqual([1, 2]);
  });

  it("matches a sorted-list model for random schedules and advances", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.record({ op: fc.constant("schedule" as const), atMs: fc.integer({ min: 0, max: 50_000 }) }),
            fc.record({ op: fc.constant("advance" as const), byMs: fc.integer({ min: 0, max: 7_000 }) }),
          ),
          { maxLength: 200 },
        ),
        fc.integer({ min: 1, max: 500 }),
        fc.integer({ min: 1, max: 64 }),
        (ops, tickMs, slots) => {
          const wheel = new TimerWheel<number>(tickMs, slots);
          const model: Array<{ atMs: number; id: number }> = [];
          let nowMs = 0;
          let id = 0;
          for (const op of ops) {
            if (op.op === "schedule") {
              wheel.schedule(op.atMs, id);
              model.push({ atMs: op.atMs, id });
              id += 1;
            } else {
              nowMs += op.byMs;
              const expected = model
                .filter((t) => t.atMs <= nowMs)
                .sort((a, b) => a.atMs - b.atMs || a.id - b.id)
                .map((t) => t.id);
              for (let i = model.length - 1; i >= 0; i -= 1) if ((model[i] as { atMs: number }).atMs <= nowMs) model.splice(i, 1);
              expect(wheel.takeDue(nowMs)).toEqual(expected);
              expect(wheel.size).toBe(model.length);
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
