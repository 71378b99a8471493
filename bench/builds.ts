/**
 * Other builds of this repository, for benches that compare two (the guard, the instruction count):
 * a commit built once in `.tmp/guard/<commit>/` from a `git archive` of it (`npm ci`, which builds),
 * then reused.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { REPO } from "./storm/processes.js";

const BUILDS = path.join(REPO, ".tmp", "guard");

export function git(...args: string[]): string {
  return execFileSync("git", args, { cwd: REPO, encoding: "utf8" }).trim();
}

/** This working tree as a report names it: its HEAD commit, and whether it has uncommitted changes. */
export function workingTreeName(): string {
  return `${git("rev-parse", "HEAD")}${git("status", "--porcelain") === "" ? "" : " (+ uncommitted changes)"}`;
}

/** A commit's `dist/`, built once. */
export function buildOf(ref: string): { commit: string; dist: string } {
  const commit = git("rev-parse", "--verify", `${ref}^{commit}`);
  const dir = path.join(BUILDS, commit);
  const built = path.join(dir, ".guard-built");
  if (!existsSync(built)) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    process.stderr.write(`building ${ref} (${commit.slice(0, 12)}) in ${path.relative(REPO, dir)} …\n`);
    execFileSync("sh", ["-c", `git -C "${REPO}" archive ${commit} | tar -x -C "${dir}"`], { stdio: "inherit" });
    const ci = spawnSync("npm", ["ci", "--no-audit", "--no-fund"], { cwd: dir, stdio: ["ignore", "ignore", "inherit"] });
    if (ci.status !== 0) throw new Error(`npm ci of ${ref} failed (${ci.status})`);
    if (!existsSync(path.join(dir, "dist", "gateway", "main.js"))) {
      const build = spawnSync("npm", ["run", "build"], { cwd: dir, stdio: ["ignore", "ignore", "inherit"] });
      if (build.status !== 0) throw new Error(`build of ${ref} failed (${build.status})`);
    }
    writeFileSync(built, `${commit}\n`);
  }
  return { commit, dist: path.join(dir, "dist") };
}

