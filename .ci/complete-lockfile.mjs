// The registry mirror this project installs from carries only the linux x64/arm64 builds of
// msgpackr-extract's platform packages; npm then leaves the other platforms out of
// package-lock.json and `npm ci` refuses the lock ("Missing: ... from lock file"). This records the
// missing platform entries (version, os, cpu as published upstream) so `npm ci` accepts the lock;
// npm skips them on this platform without fetching. Run after any `npm install` that rewrites the lock.
import { readFileSync, writeFileSync } from "node:fs";

const lockPath = new URL("../package-lock.json", import.meta.url);
const lock = JSON.parse(readFileSync(lockPath, "utf8"));
const parent = lock.packages["node_modules/msgpackr-extract"];
if (parent === undefined) throw new Error("msgpackr-extract is not in the lock");
const PLATFORMS = {
  "darwin-arm64": { os: ["darwin"], cpu: ["arm64"] },
  "darwin-x64": { os: ["darwin"], cpu: ["x64"] },
  "linux-arm": { os: ["linux"], cpu: ["arm"] },
  "linux-arm64": { os: ["linux"], cpu: ["arm64"] },
  "linux-x64": { os: ["linux"], cpu: ["x64"] },
  "win32-x64": { os: ["win32"], cpu: ["x64"] },
};
let added = 0;
for (const [name, version] of Object.entries(parent.optionalDependencies ?? {})) {
  const key = `node_modules/${name}`;
  if (lock.packages[key] !== undefined) continue;
  const platform = PLATFORMS[name.replace("@msgpackr-extract/msgpackr-extract-", "")];
  if (platform === undefined) throw new Error(`unknown platform package ${name}`);
  lock.packages[key] = { version, cpu: platform.cpu, license: "MIT", optional: true, os: platform.os };
  added += 1;
}
const sorted = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a < b ? -1 : 1)));
lock.packages = sorted;
writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`complete-lockfile: ${added} platform entr${added === 1 ? "y" : "ies"} added`);
