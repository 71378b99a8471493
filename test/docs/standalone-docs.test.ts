/**
 * README.md and docs/ stand alone in the repository (issue 25 §4): no link or path leads outside it
 * (a machine path, a sibling checkout, a scratch folder that git ignores), every relative link
 * resolves to a file that is in the repository, and every source path the prose names exists.
 */
import { existsSync, readdirSync, statSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

function docFiles(): string[] {
  const files = ["README.md"];
  const walk = (dir: string) => {
    for (const name of readdirSync(path.join(ROOT, dir))) {
      const relative = path.join(dir, name);
      if (statSync(path.join(ROOT, relative)).isDirectory()) walk(relative);
      else files.push(relative);
    }
  };
  walk("docs");
  return files;
}

/** Paths that can only mean something outside this repository. */
const OUTSIDE = [
  { pattern: /\/work\//, why: "a path on the machine the project was built on" },
  { pattern: /\.\.\/shared\b|(?<![\w/.-])shared\/(spec|notes)\//, why: "a checkout beside the repository" },
  { pattern: /(?<![\w])\.tmp\//, why: "a scratch folder git ignores" },
  { pattern: /\/home\/|\/root\/|~\//, why: "someone's home directory" },
  { pattern: /file:\/\//, why: "a local file URL" },
];

/** Top-level folders whose paths the prose cites as files of the repository. */
const REPO_FOLDERS = /^(engine|gateway|storage|packages|bench|test|docs|build|\.ci)\//;

describe("README and docs stand alone", () => {
  const files = docFiles();

  it("scans README.md and every file under docs/", () => {
    expect(files).toContain("docs/errors.md");
    expect(files).toContain("docs/spec/market-service-http.md");
  });

  it("name no path outside the repository", () => {
    const problems: string[] = [];
    for (const file of files) {
      readFileSync(path.join(ROOT, file), "utf8").split("\n").forEach((line, index) => {
        for (const { pattern, why } of OUTSIDE) if (pattern.test(line)) problems.push(`${file}:${index + 1}: ${why}: ${line.trim()}`);
      });
    }
    expect(problems).toEqual([]);
  });

  it("link only to files that are in the repository", () => {
    const problems: string[] = [];
    for (const file of files.filter((f) => f.endsWith(".md"))) {
      const text = readFileSync(path.join(ROOT, file), "utf8");
      for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = (match[1] as string).split("#")[0] as string;
        if (target === "" || /^(https?|mailto):/.test(target)) continue;
        const resolved = path.resolve(ROOT, path.dirname(file), target);
        if (!resolved.startsWith(`${ROOT}${path.sep}`)) problems.push(`${file}: ${target} leaves the repository`);
        else if (!existsSync(resolved)) problems.push(`${file}: ${target} does not exist`);
      }
    }
    expect(problems).toEqual([]);
  });

  it("cite only source paths that exist", () => {
    const problems: string[] = [];
    for (const file of files.filter((f) => f.endsWith(".md"))) {
      const text = readFileSync(path.join(ROOT, file), "utf8");
      for (const match of text.matchAll(/`([^`\s]+)`/g)) {
        const cited = (match[1] as string).replace(/[.,:;)]+$/, "").replace(/(:[0-9]+)+$/, "");
        // Globs, placeholders and generated output are not files to look for.
        if (!REPO_FOLDERS.test(cited) || /[*<>{}$]/.test(cited) || /^packages\/[^/]+\/dist(\/|$)/.test(cited)) continue;
        if (!existsSync(path.join(ROOT, cited))) problems.push(`${file}: ${cited}`);
      }
    }
    expect(problems).toEqual([]);
  });
});
