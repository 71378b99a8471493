/** bench/cluster-ab.ts: what it reads from a bench:cluster result, and how it compares the two ways' rounds. */
import { describe, expect, it } from "vitest";
import { compare, figuresOf, type RunFigures } from "../../bench/cluster-ab.js";

function storm(name: string, mode: "single node" | "cluster", perSecond: number) {
  return { name, mode, requestsPerSecond: perSecond, latencyUs: { p50: 30_000 }, cpu: { serviceUsPerRequest: 300, natsUsPerRequest: 350 }, commits: { commandsPerCommit: 36 } };
}

function run(hot: number, spread: number, singleHot = 13_000, singleSpread = 8_000): RunFigures {
  return figuresOf({ storms: [storm("hot market", "single node", singleHot), storm("1,000 markets", "single node", singleSpread), storm("hot market", "cluster", hot), storm("1,000 markets", "cluster", spread)] });
}

describe("cluster-ab", () => {
  it("takes each storm's cluster figures beside the single node's of the same name", () => {
    const figures = figuresOf({ storms: [storm("hot market", "single node", 13_000), storm("hot market", "cluster", 2_000), storm("1,000 markets", "cluster", 600)] });
    expect(Object.keys(figures)).toEqual(["hot market"]);
    expect(figures["hot market"]).toEqual({ clusterPerSecond: 2_000, singlePerSecond: 13_000, serviceUs: 300, natsUs: 350, p50Ms: 30, claimsPerCommit: 36 });
  });

  it("gives per storm the median and range of B ÷ A, and each way's median cluster ÷ single node", () => {
    const compared = compare([
      { a: run(2_000, 600), b: run(2_200, 1_200) },
      { a: run(1_000, 500), b: run(1_500, 1_000, 10_000) },
      { a: run(2_000, 700), b: run(1_800, 1_400) },
    ]);
    expect(compared["hot market"]?.ratio).toEqual({ median: 1.1, min: 0.9, max: 1.5 });
    expect(compared["1,000 markets"]?.ratio).toEqual({ median: 2, min: 2, max: 2 });
    expect(compared["hot market"]?.aToSingle).toBeCloseTo(2_000 / 13_000, 6);
    expect(compared["hot market"]?.bToSingle).toBeCloseTo(1_500 / 10_000, 6);
  });
});
