/**
 * V8 CPU profiles (`node --cpu-prof`) cut to a time window, merged into a call tree and drawn as a
 * flame graph (icicle: callers above callees) in plain SVG, plus a table of self time by function.
 * Used by the storm profile (profile-storm.ts) to show where a claim's CPU goes in each thread.
 *
 * Time: a profile's `startTime` and sample times are microseconds on V8's monotonic clock, which on
 * Linux is CLOCK_MONOTONIC, the clock of `process.hrtime` in any process: the driver's start and end
 * times cut every thread's profile to the same window.
 */

/** The parts of a `.cpuprofile` this module reads (Chrome DevTools protocol `Profiler.Profile`). */
export interface CpuProfile {
  nodes: Array<{
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
    children?: number[];
  }>;
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** A merged call-tree node: every call path with the same frames is one node. */
export interface FlameNode {
  name: string;
  /** Short location: the last two path segments and the 1-based line ("" for native frames). */
  location: string;
  kind: "ours" | "dependency" | "node" | "native" | "vm";
  selfUs: number;
  totalUs: number;
  children: FlameNode[];
}

export interface WindowedTree {
  root: FlameNode;
  /** Sampled time in the window, idle included. */
  windowUs: number;
  /** Sampled time the thread was idle (waiting in its event loop). */
  idleUs: number;
}

const VM_FRAMES = new Set(["(program)", "(garbage collector)", "(root)"]);

function kindOf(functionName: string, url: string): FlameNode["kind"] {
  if (VM_FRAMES.has(functionName)) return "vm";
  if (url === "") return "native";
  if (url.startsWith("node:")) return "node";
  if (url.includes("/node_modules/")) return "dependency";
  return "ours";
}

function locationOf(url: string, lineNumber: number): string {
  if (url === "") return "";
  const parts = url.split("/");
  return `${parts.slice(-2).join("/")}:${lineNumber + 1}`;
}

/**
 * The call tree of the samples taken in [fromUs, toUs] (monotonic µs), merged by frame (name +
 * location) along each path. A sample stands for the time until the next sample (the last one: until
 * the profile's end). Idle samples are counted in `idleUs` and left out of the tree.
 */
export function windowedTree(profile: CpuProfile, fromUs: number, toUs: number): WindowedTree {
  if (profile.samples.length !== profile.timeDeltas.length) throw new Error("profile samples and timeDeltas differ in length");
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);

  // Time per profile node in the window.
  const timeByNode = new Map<number, number>();
  let windowUs = 0;
  let idleUs = 0;
  let at = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i] as number;
    const next = i + 1 < profile.samples.length ? at + (profile.timeDeltas[i + 1] as number) : profile.endTime;
    if (at < fromUs || at > toUs) continue;
    const durationUs = Math.max(0, next - at);
    const nodeId = profile.samples[i] as number;
    windowUs += durationUs;
    if (byId.get(nodeId)?.callFrame.functionName === "(idle)") {
      idleUs += durationUs;
      continue;
    }
    timeByNode.set(nodeId, (timeByNode.get(nodeId) ?? 0) + durationUs);
  }

  const root: FlameNode = { name: "all", location: "", kind: "vm", selfUs: 0, totalUs: 0, children: [] };
  const childIndex = new Map<FlameNode, Map<string, FlameNode>>();
  const childOf = (parent: FlameNode, name: string, location: string, kind: FlameNode["kind"]): FlameNode => {
    let index = childIndex.get(parent);
    if (index === undefined) {
      index = new Map();
      childIndex.set(parent, index);
    }
    const key = `${name}\u0000${location}`;
    let child = index.get(key);
    if (child === undefined) {
      child = { name, location, kind, selfUs: 0, totalUs: 0, children: [] };
      index.set(key, child);
      parent.children.push(child);
    }
    return child;
  };

  for (const [nodeId, durationUs] of timeByNode) {
    // The path from the profile's root down to this node, the profile's own "(root)" left out.
    const path: number[] = [];
    for (let id: number | undefined = nodeId; id !== undefined; id = parentOf.get(id)) path.push(id);
    path.reverse();
    let current = root;
    root.totalUs += durationUs;
    for (const id of path) {
      const frame = (byId.get(id) as CpuProfile["nodes"][number]).callFrame;
      if (frame.functionName === "(root)") continue;
      current = childOf(current, frame.functionName === "" ? "(anonymous)" : frame.functionName, locationOf(frame.url, frame.lineNumber), kindOf(frame.functionName, frame.url));
      current.totalUs += durationUs;
    }
    current.selfUs += durationUs;
  }
  sortTree(root);
  return { root, windowUs, idleUs };
}

function sortTree(node: FlameNode): void {
  node.children.sort((a, b) => b.totalUs - a.totalUs);
  for (const child of node.children) sortTree(child);
}

/** Self time summed per function (name + location) over the whole tree, largest first. */
export function selfTimeByFunction(root: FlameNode): Array<{ name: string; location: string; kind: FlameNode["kind"]; selfUs: number }> {
  const totals = new Map<string, { name: string; location: string; kind: FlameNode["kind"]; selfUs: number }>();
  const visit = (node: FlameNode): void => {
    if (node.selfUs > 0) {
      const key = `${node.name}\u0000${node.location}`;
      const entry = totals.get(key) ?? { name: node.name, location: node.location, kind: node.kind, selfUs: 0 };
      entry.selfUs += node.selfUs;
      totals.set(key, entry);
    }
    for (const child of node.children) visit(child);
  };
  visit(root);
  return [...totals.values()].sort((a, b) => b.selfUs - a.selfUs);
}

const COLORS: Record<FlameNode["kind"], string> = {
  ours: "#6fbf73",
  dependency: "#f0a848",
  node: "#79a6d9",
  native: "#e07060",
  vm: "#b0b0b0",
};

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;", "'": "&apos;" })[c] as string);
}

/**
 * The tree as an SVG icicle graph: width = time, callers above callees, one colour per kind of
 * code. Every box has a tooltip with its time per request. Boxes under `minWidthPx` are left out.
 */
export function flameGraphSvg(tree: WindowedTree, options: { title: string; requests: number; widthPx?: number; minWidthPx?: number }): string {
  const widthPx = options.widthPx ?? 1200;
  const minWidthPx = options.minWidthPx ?? 0.5;
  const rowPx = 17;
  const topPx = 44;
  const perRequest = (us: number): string => (options.requests > 0 ? (us / options.requests).toFixed(1) : "?");
  const total = tree.root.totalUs;
  const boxes: string[] = [];
  let depthMax = 0;
  const draw = (node: FlameNode, x: number, depth: number): void => {
    const w = total > 0 ? (node.totalUs / total) * widthPx : 0;
    if (w < minWidthPx) return;
    depthMax = Math.max(depthMax, depth);
    const y = topPx + depth * rowPx;
    const label = node.location === "" ? node.name : `${node.name} ${node.location}`;
    const share = total > 0 ? ((100 * node.totalUs) / total).toFixed(1) : "0";
    const tip = `${label}\n${perRequest(node.totalUs)} µs/request (${share}% of busy time), self ${perRequest(node.selfUs)} µs/request`;
    const chars = Math.floor((w - 6) / 6.6);
    const text = chars >= 3 ? (label.length <= chars ? label : `${label.slice(0, chars - 1)}…`) : "";
    boxes.push(
      `<g><title>${escapeXml(tip)}</title><rect x="${x.toFixed(2)}" y="${y}" width="${w.toFixed(2)}" height="${rowPx - 1}" fill="${COLORS[node.kind]}" rx="1"/>` +
        (text === "" ? "" : `<text x="${(x + 3).toFixed(2)}" y="${y + 12}">${escapeXml(text)}</text>`) +
        "</g>",
    );
    let childX = x;
    for (const child of node.children) {
      draw(child, childX, depth + 1);
      childX += total > 0 ? (child.totalUs / total) * widthPx : 0;
    }
  };
  draw(tree.root, 0, 0);
  const heightPx = topPx + (depthMax + 1) * rowPx + 24;
  const idleShare = tree.windowUs > 0 ? ((100 * tree.idleUs) / tree.windowUs).toFixed(0) : "0";
  const legend = (Object.keys(COLORS) as Array<FlameNode["kind"]>)
    .map((kind, i) => `<rect x="${i * 120}" y="${heightPx - 16}" width="12" height="12" fill="${COLORS[kind]}"/><text x="${i * 120 + 16}" y="${heightPx - 6}">${kind}</text>`)
    .join("");
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${widthPx}" height="${heightPx}" font-family="monospace" font-size="11">`,
    `<text x="0" y="16" font-size="14">${escapeXml(options.title)}</text>`,
    `<text x="0" y="34">busy ${perRequest(total)} µs/request (${options.requests.toLocaleString("en-US")} requests); idle ${idleShare}% of the window; hover a box for its time</text>`,
    ...boxes,
    legend,
    "</svg>",
    "",
  ].join("\n");
}
