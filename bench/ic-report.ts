/**
 * `node --import tsx bench/ic-report.ts LOG [--top 40] [--ours]`: the inline caches that went
 * megamorphic (N) or generic (X) in a V8 IC log, by function, source position and property, most
 * frequent first. A site listed many times is read with objects of many hidden classes, which a CPU
 * profile spreads thinly over its callers (decision I13: the claim path's commands and token
 * entries were such objects).
 *
 * Make the log with `--log-ic --logfile=/tmp/ic.log`: V8 writes one file per isolate,
 * `/tmp/isolate-<address>-<pid>-ic.log` (the largest is usually the busiest thread). For the
 * service under a storm: `STORM_NODE_ARGS="--log-ic --logfile=/tmp/ic.log"` with the storm's
 * process helpers (bench/storm/processes.ts). `--ours` keeps only sites in dist/, engine/,
 * gateway/ and storage/ outside node_modules.
 */
import { readFileSync } from "node:fs";
import { numberArg } from "./args.js";

const file = process.argv[2];
if (file === undefined || file.startsWith("--")) {
  process.stderr.write("usage: node --import tsx bench/ic-report.ts LOG [--top 40] [--ours]\n");
  process.exit(2);
}
const TOP = numberArg("top", 40);
const OURS = process.argv.includes("--ours");

interface CodeRange {
  start: number;
  end: number;
  name: string;
}

const codes: CodeRange[] = [];
const counts = new Map<string, number>();
// IC lines: type, pc, time, line, column, old state, new state, map, key, modifier, slow reason.
const IC_LINE = /^(\w+IC),(0x[0-9a-f]+),\d+,(\d+),(\d+),(\w),(\w),(0x[0-9a-f]+|),([^,]*),/;

/** The code object holding `pc`: the latest one created at that address wins (code is reused). */
function functionAt(pc: number): string {
  for (let i = codes.length - 1; i >= 0; i -= 1) {
    const code = codes[i] as CodeRange;
    if (pc >= code.start && pc < code.end) return code.name;
  }
  return "(unknown code)";
}

for (const line of readFileSync(file, "utf8").split("\n")) {
  if (line.startsWith("code-creation,")) {
    const fields = line.split(",");
    const start = Number.parseInt(fields[4] ?? "", 16);
    const size = Number(fields[5]);
    if (Number.isFinite(start) && Number.isFinite(size)) codes.push({ start, end: start + size, name: fields.slice(6).join(",") });
    continue;
  }
  const ic = IC_LINE.exec(line);
  if (ic === null) continue;
  const [, kind, pc, row, column, , state, , key] = ic;
  if (state !== "N" && state !== "X") continue;
  const where = functionAt(Number.parseInt(pc ?? "0", 16));
  if (OURS && (where.includes("node_modules") || !/\/(dist|engine|gateway|storage)\//.test(where))) continue;
  const site = `${kind} ${state === "N" ? "megamorphic" : "generic"} ${where.slice(0, 100)} at ${row}:${column} .${key}`;
  counts.set(site, (counts.get(site) ?? 0) + 1);
}

const sorted = [...counts].sort((a, b) => b[1] - a[1]).slice(0, TOP);
if (sorted.length === 0) console.log("no megamorphic or generic inline cache in this log");
for (const [site, count] of sorted) console.log(`${String(count).padStart(7)}  ${site}`);
