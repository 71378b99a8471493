/**
 * Markdown summary and SVG charts (vega-lite compiled to vega, rendered headless to SVG in Node) of
 * a storm run's raw results.
 */
import { writeFileSync } from "node:fs";
import * as path from "node:path";
import * as vega from "vega";
import { compile, type TopLevelSpec } from "vega-lite";
import type { WrkResult } from "./processes.js";
import type { CommitLatency } from "./commit-latency.js";

export interface ScenarioResult {
  name: string;
  peak: WrkResult;
  /** `commits`: the service's group commits during the half-rate run (commit-latency.ts). */
  halfRate?: WrkResult & { offeredPerSecond: number; commits?: CommitLatency };
  ratioToFloor?: number;
  checks: Array<{ name: string; ok: boolean; detail: string }>;
  notes?: string;
}

/** A vega-lite spec rendered headless to SVG text (also used by the soak's chart). */
export async function svg(spec: TopLevelSpec): Promise<string> {
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: "none" });
  return view.toSVG();
}

function fmt(n: number): string {
  return Math.round(n).toLocaleString("en-US");
}

export async function writeReport(options: {
  dir: string;
  stem: string;
  machine: Record<string, unknown>;
  settings: Record<string, unknown>;
  floor: WrkResult;
  scenarios: ScenarioResult[];
  extra?: string;
}): Promise<string> {
  const { dir, stem, floor, scenarios } = options;
  const throughput = [{ scenario: "floor (no-op uWS)", rps: floor.requestsPerSecond }, ...scenarios.map((s) => ({ scenario: s.name, rps: s.peak.requestsPerSecond }))];
  const throughputSvg = await svg({
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    title: "Throughput at saturation (requests/s, same driver and connections)",
    width: 520,
    height: 220,
    data: { values: throughput },
    mark: { type: "bar", tooltip: true },
    encoding: {
      y: { field: "scenario", type: "nominal", sort: null, title: null },
      x: { field: "rps", type: "quantitative", title: "requests/s" },
    },
  });
  const latencies = [floor, ...scenarios.map((s) => s.peak)].flatMap((r, i) => {
    const name = i === 0 ? "floor" : (scenarios[i - 1] as ScenarioResult).name;
    return (["p50", "p90", "p99", "p999"] as const).map((p) => ({ scenario: name, percentile: p === "p999" ? "p99.9" : p, ms: r.latencyUs[p] / 1000 }));
  });
  const latencySvg = await svg({
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    title: "Latency percentiles at saturation (ms)",
    width: 520,
    height: 220,
    data: { values: latencies },
    mark: { type: "bar", tooltip: true },
    encoding: {
      x: { field: "scenario", type: "nominal", sort: null, title: null },
      xOffset: { field: "percentile", sort: ["p50", "p90", "p99", "p99.9"] },
      y: { field: "ms", type: "quantitative", title: "ms", scale: { type: "symlog" } },
      color: { field: "percentile", sort: ["p50", "p90", "p99", "p99.9"] },
    },
  });
  writeFileSync(path.join(dir, `${stem}-throughput.svg`), throughputSvg);
  writeFileSync(path.join(dir, `${stem}-latency.svg`), latencySvg);
  const rows = scenarios.map((s) => {
    const ok = s.checks.every((c) => c.ok);
    const rate = ok ? fmt(s.peak.requestsPerSecond) : "FAILED";
    return `| ${s.name} | ${rate} | ${s.ratioToFloor === undefined ? "" : s.ratioToFloor.toFixed(2)} | ${(s.peak.latencyUs.p50 / 1000).toFixed(2)} | ${(s.peak.latencyUs.p99 / 1000).toFixed(2)} | ${(s.peak.latencyUs.p999 / 1000).toFixed(2)} | ${s.halfRate === undefined ? "" : `${(s.halfRate.latencyUs.p99 / 1000).toFixed(2)} (p50 ${(s.halfRate.latencyUs.p50 / 1000).toFixed(2)}) @ ${fmt(s.halfRate.offeredPerSecond)}/s offered, ${fmt(s.halfRate.requestsPerSecond)}/s done`} | ${ok ? "all passed" : s.checks.filter((c) => !c.ok).map((c) => c.name).join("; ")} |`;
  });
  const markdown = [
    `# Storm run ${stem}`,
    "",
    `Machine: ${JSON.stringify(options.machine)}`,
    `Settings: ${JSON.stringify(options.settings)}`,
    "",
    `Floor (no-op uWebSockets.js, same driver): **${fmt(floor.requestsPerSecond)} req/s**, p50 ${(floor.latencyUs.p50 / 1000).toFixed(2)} ms, p99 ${(floor.latencyUs.p99 / 1000).toFixed(2)} ms.`,
    "",
    "| scenario | req/s | ÷ floor | p50 ms | p99 ms | p99.9 ms | p99 ms at half the peak | checks |",
    "|---|---:|---:|---:|---:|---:|---|---|",
    ...rows,
    "",
    ...scenarios.flatMap((s) => [`## ${s.name}`, "", ...(s.notes === undefined ? [] : [s.notes, ""]), ...commitLines(s), ...s.checks.map((c) => `- ${c.ok ? "✔" : "✘"} ${c.name}: ${c.detail}`), ""]),
    options.extra ?? "",
    `![throughput](${stem}-throughput.svg)`,
    "",
    `![latency](${stem}-latency.svg)`,
    "",
  ].join("\n");
  const file = path.join(dir, `${stem}.md`);
  writeFileSync(file, markdown);
  return file;
}

/** The half-rate run's group commits beside its claims' p99: a claim waits for one or two commits. */
function commitLines(s: ScenarioResult): string[] {
  const commits = s.halfRate?.commits;
  if (s.halfRate === undefined || commits === undefined) return [];
  return [
    `At half the peak, claims' p99 ${(s.halfRate.latencyUs.p99 / 1000).toFixed(2)} ms; the service's ${fmt(commits.commits)} group commits (write + fdatasync) in that run: ` +
      `p99 ≤ ${commits.p99AtMostMs} ms, ${fmt(commits.over1Ms)} over 1 ms, ${fmt(commits.over2Ms)} over 2 ms, ${fmt(commits.over5Ms)} over 5 ms.`,
    "",
  ];
}
