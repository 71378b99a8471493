/**
 * The top frames of Node CPU profiles (`--cpu-prof`), by self time, one table per thread, so two
 * builds' profiles can be read side by side (the guard writes them with `--profile DIR`).
 *   node --import tsx bench/profile-top.ts <dir with .cpuprofile files> [--top 25] [--by function|file]
 *
 * Self time is sampled time spent in a frame itself (not in what it calls); "(program)" is native
 * work outside JS (uWS, syscalls, the event loop) and "(idle)" a thread waiting for work.
 */
import { readdirSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { numberArg, stringArg } from "./args.js";
import { selfTimes, type CpuProfile, type CpuProfileNode } from "./storm/cpu-profile.js";

const dir = process.argv[2];
if (dir === undefined || dir.startsWith("--")) throw new Error("usage: profile-top.ts <dir> [--top N] [--by function|file]");
const TOP = numberArg("top", 25);
const BY = stringArg("by", "function");

function frameKey(node: CpuProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const file = url === "" ? "" : url.replace(/^file:\/\//, "").replace(/^.*?\/(dist|node_modules)\//, "$1/");
  if (BY === "file") return file === "" ? `(${functionName || "native"})` : file;
  return `${functionName || "(anonymous)"}${file === "" ? "" : ` ${file}:${lineNumber + 1}`}`;
}

for (const file of readdirSync(dir).filter((f) => f.endsWith(".cpuprofile")).sort()) {
  const profile = JSON.parse(readFileSync(path.join(dir, file), "utf8")) as CpuProfile;
  const { byFrame: selfUs, totalUs, idleUs } = selfTimes(profile, frameKey);
  const busyUs = totalUs - idleUs;
  console.log(`\n## ${file}: ${(totalUs / 1e6).toFixed(2)} s sampled, ${(busyUs / 1e6).toFixed(2)} s not idle`);
  const rows = [...selfUs.entries()].sort((a, b) => b[1] - a[1]).slice(0, TOP);
  for (const [key, us] of rows) console.log(`${(us / 1e3).toFixed(0).padStart(8)} ms ${((100 * us) / Math.max(1, busyUs)).toFixed(1).padStart(5)}%  ${key}`);
}
