/**
 * Where a bench writes its results: `bench/results/<date>-<name>`, and `<date>-<name>-2`, `-3`, …
 * when a file of that stem is already there. bench/README.md links the files behind its figures;
 * a second run on the same day must not replace them.
 */
import { mkdirSync, readdirSync } from "node:fs";
import * as path from "node:path";

export const RESULTS_DIR = path.join(import.meta.dirname, "results");

/** A stem (`<date>-<name>[-n]`, no extension) that no file in the results directory uses yet. */
export function freshResultStem(name: string, date: Date = new Date()): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const taken = readdirSync(RESULTS_DIR).map((file) => (file.includes(".") ? file.slice(0, file.indexOf(".")) : file));
  const base = `${date.toISOString().slice(0, 10)}-${name}`;
  // A stem is taken by its own files and by those that extend it (`<stem>-latency.svg`); a false
  // positive only moves the run to the next number.
  const used = (stem: string) => taken.some((file) => file === stem || file.startsWith(`${stem}-`));
  if (!used(base)) return base;
  for (let n = 2; ; n += 1) if (!used(`${base}-${n}`)) return `${base}-${n}`;
}
