/**
 * Where a bench writes its results: `bench/results/<date>-<name>`, and `<date>-<name>-2`, `-3`, …
 * when a file of that stem is already there. bench/README.md links the files behind its figures;
 * a second run on the same day must not replace them. Older results are removed from the folder
 * and live in git history, where the docs cite them by name and commit: a stem any commit held is
 * taken too, so a new run never takes the name of an older one.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import * as path from "node:path";

export const RESULTS_DIR = path.join(import.meta.dirname, "results");

/** The names of the result files any commit held (none outside a git checkout, e.g. an archive). */
function committedResultFiles(): string[] | undefined {
  try {
    // Only the files added (each once), with room for a long history: a cut-off list would hand out a stem again.
    const names = execFileSync("git", ["log", "--all", "--diff-filter=A", "--format=", "--name-only", "--", "."], { cwd: RESULTS_DIR, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], maxBuffer: 256 * 1024 * 1024 });
    return names.split("\n").filter((name) => name !== "").map((name) => path.basename(name));
  } catch (error) {
    // Outside a checkout there is no history to avoid. Inside one, a failed read must not hand out
    // an older run's name silently: say so, and let the caller fall back to a name of its own.
    if (!existsSync(path.join(RESULTS_DIR, "..", "..", ".git"))) return [];
    process.stderr.write(`result-stem: could not read bench/results' git history (${error instanceof Error ? error.message.split("\n")[0] : String(error)})\n`);
    return undefined;
  }
}

/** A stem (`<date>-<name>[-n]`, no extension) that no file in the results directory or its git history uses yet. */
export function freshResultStem(name: string, date: Date = new Date()): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const committed = committedResultFiles();
  const base = `${date.toISOString().slice(0, 10)}-${name}`;
  // Unknown history: a stem with the time of day, which no numbered stem of an earlier run has.
  if (committed === undefined) return `${base}-at-${date.toISOString().slice(11, 19).replaceAll(":", "")}`;
  const taken = [...readdirSync(RESULTS_DIR), ...committed].map((file) => (file.includes(".") ? file.slice(0, file.indexOf(".")) : file));
  // A stem is taken by its own files and by those that extend it (`<stem>-latency.svg`); a false
  // positive only moves the run to the next number.
  const used = (stem: string) => taken.some((file) => file === stem || file.startsWith(`${stem}-`));
  if (!used(base)) return base;
  for (let n = 2; ; n += 1) if (!used(`${base}-${n}`)) return `${base}-${n}`;
}
