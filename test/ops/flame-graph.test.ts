import { describe, expect, it } from "vitest";
import { flameGraphSvg, selfTimeByFunction, windowedTree, type CpuProfile } from "../../bench/storm/flame-graph.js";

/**
 * A hand-made profile: (root) → main → { work → hash, idle }, and a second path (root) → other → hash
 * (the same function under another caller). Uneven intervals, so a sample's time is the interval
 * that FOLLOWS it (until the next sample, the last one until the profile's end).
 */
function profile(): CpuProfile {
  const frame = (functionName: string, url = "file:///repo/gateway/a.js", lineNumber = 0) => ({ functionName, url, lineNumber });
  return {
    nodes: [
      { id: 1, callFrame: frame("(root)", ""), children: [2, 6, 7] },
      { id: 2, callFrame: frame("main", "file:///repo/gateway/main.js", 9), children: [3] },
      { id: 3, callFrame: frame("work", "file:///repo/gateway/work.js", 19), children: [4] },
      { id: 4, callFrame: frame("hash", "node:internal/crypto/hash", 4) },
      { id: 6, callFrame: frame("(idle)", "") },
      { id: 7, callFrame: frame("other", "file:///repo/node_modules/dep/x.js", 0), children: [8] },
      { id: 8, callFrame: frame("hash", "node:internal/crypto/hash", 4) },
    ],
    startTime: 1000,
    endTime: 1700,
    // t = 1100 work (50 µs), 1150 hash (100), 1250 idle (100), 1350 hash under other (100),
    //     1450 main (100), 1550 hash (150, until endTime)
    samples: [3, 4, 6, 8, 2, 4],
    timeDeltas: [100, 50, 100, 100, 100, 100],
  };
}

describe("storm profile: windowed call tree", () => {
  it("merges paths, counts each sample until the next one, and keeps idle out of the tree", () => {
    const tree = windowedTree(profile(), 0, Number.MAX_SAFE_INTEGER);
    expect(tree.windowUs).toBe(600);
    expect(tree.idleUs).toBe(100);
    expect(tree.root.totalUs).toBe(500);
    const [main, other] = tree.root.children;
    expect(main?.name).toBe("main");
    expect(main?.location).toBe("gateway/main.js:10");
    expect(main?.kind).toBe("ours");
    expect(main?.totalUs).toBe(400);
    expect(main?.selfUs).toBe(100);
    const work = main?.children[0];
    expect(work?.totalUs).toBe(300);
    expect(work?.children[0]?.name).toBe("hash");
    expect(work?.children[0]?.totalUs).toBe(250);
    expect(work?.children[0]?.kind).toBe("node");
    expect(other?.kind).toBe("dependency");
    expect(other?.totalUs).toBe(100);
  });

  it("keeps only the samples inside the window", () => {
    const tree = windowedTree(profile(), 1300, 1500);
    expect(tree.windowUs).toBe(200); // samples at 1350 and 1450
    expect(tree.root.totalUs).toBe(200);
    expect(tree.root.children.map((c) => c.name).sort()).toEqual(["main", "other"]);
  });

  it("sums self time per function across callers", () => {
    const rows = selfTimeByFunction(windowedTree(profile(), 0, Number.MAX_SAFE_INTEGER).root);
    expect(rows[0]).toEqual({ name: "hash", location: "crypto/hash:5", kind: "node", selfUs: 350 });
    expect(rows.reduce((sum, r) => sum + r.selfUs, 0)).toBe(500);
  });

  it("draws one box per visible node with its time per request, and escapes names", () => {
    const p = profile();
    (p.nodes[2] as CpuProfile["nodes"][number]).callFrame.functionName = "work<&>";
    const svg = flameGraphSvg(windowedTree(p, 0, Number.MAX_SAFE_INTEGER), { title: "t", requests: 10 });
    expect(svg.startsWith("<svg")).toBe(true);
    expect(svg).toContain("work&lt;&amp;&gt;");
    expect(svg).not.toContain("work<&>");
    expect(svg).toContain("busy 50.0 µs/request");
    // all, main, work, hash (under work), other, hash (under other)
    expect(svg.match(/<rect x=/g)?.length).toBe(6 + 5 /* legend */);
  });

  it("refuses a profile whose samples and deltas disagree", () => {
    const p = profile();
    p.timeDeltas.pop();
    expect(() => windowedTree(p, 0, 1)).toThrow(/differ in length/);
  });
});
