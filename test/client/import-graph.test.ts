/**
 * The client package (packages/client, @market-service/client) runs in a browser: nothing in its
 * import graph may need Node. Three checks:
 * - the built entry (packages/client/dist/index.js, what `@market-service/client` resolves to) and
 *   every module it imports, followed file by file: every import is relative and inside the
 *   package's dist/, or one of the package's declared dependencies (@noble/ed25519, @noble/hashes,
 *   msgpackr's portable decoder: a receipt's proven entry is decoded to check it is the sender's
 *   command);
 * - esbuild bundles the source entry for the browser platform, where a `node:` import (or any Node
 *   built-in) cannot resolve and fails the build;
 * - split into chunks as a browser app's bundler splits it (esbuild --bundle --minify --splitting),
 *   what a browser loads first (the entry's chunk and every chunk it imports statically, each
 *   gzip -9) is at most 21,000 bytes: the receipt check, which `checkReceipt` imports dynamically,
 *   is a chunk of its own holding the proof checks and msgpackr's decoder, loaded only by a check.
 *   Everything, lazy chunk included, stays within 34,494 bytes gzipped, the SDK's size when it was
 *   still gateway/client/ in the service, before it became a package.
 * `npm test` builds dist/ before vitest runs.
 */
import { existsSync, readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import * as path from "node:path";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";

const REPO_ROOT = path.resolve(import.meta.dirname, "../..");
const PACKAGE = path.join(REPO_ROOT, "packages/client");
const BUILT_ENTRY = path.join(PACKAGE, "dist/index.js");
const SOURCE_ENTRY = path.join(PACKAGE, "src/index.ts");
const DEPENDENCIES = Object.keys((JSON.parse(readFileSync(path.join(PACKAGE, "package.json"), "utf8")) as { dependencies: Record<string, string> }).dependencies);
/** What a browser loads first, gzipped (the budget). */
const FIRST_LOAD_BUDGET = 21_000;
/** Everything, lazy chunks included, gzipped: the SDK's size before it became a package. */
const TOTAL_BUDGET = 34_494;

/** Every module specifier of a built ES module: static imports and re-exports, and dynamic imports. */
function specifiers(code: string): string[] {
  const found: string[] = [];
  for (const match of code.matchAll(/(?:^|[;\s])(?:import|export)\s*(?:[^'";]*?\sfrom\s*)?["']([^"']+)["']/g)) found.push(match[1] as string);
  for (const match of code.matchAll(/\bimport\s*\(\s*["']([^"']+)["']\s*\)/g)) found.push(match[1] as string);
  return found;
}

/** The graph from `entry`: each file, and the bare (non-relative) specifiers it imports. */
function importGraph(entry: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const pending = [entry];
  while (pending.length > 0) {
    const file = pending.pop() as string;
    if (graph.has(file)) continue;
    const bare: string[] = [];
    graph.set(file, bare);
    for (const specifier of specifiers(readFileSync(file, "utf8"))) {
      if (specifier.startsWith(".")) pending.push(path.resolve(path.dirname(file), specifier));
      else bare.push(specifier);
    }
  }
  return graph;
}

describe("the SDK's import graph", () => {
  it("from the built entry, imports only its own modules and its dependencies: @noble packages and msgpackr", () => {
    expect(existsSync(BUILT_ENTRY), "run npm run build first").toBe(true);
    expect(DEPENDENCIES.sort()).toEqual(["@noble/ed25519", "@noble/hashes", "msgpackr"]);
    const graph = importGraph(BUILT_ENTRY);
    expect(graph.size).toBeGreaterThan(5);
    const offending = [...graph].flatMap(([file, bare]) => bare.filter((specifier) => !DEPENDENCIES.some((name) => specifier === name || specifier.startsWith(`${name}/`))).map((specifier) => `${path.relative(REPO_ROOT, file)} imports ${specifier}`));
    expect(offending).toEqual([]);
    // Only the package's own build: nothing of the service.
    const files = [...graph.keys()].map((file) => path.relative(REPO_ROOT, file)).sort();
    expect(files.filter((file) => !file.startsWith("packages/client/dist/"))).toEqual([]);
  });

  it("the walker sees a node: import where there is one (the CLI's commands)", () => {
    const graph = importGraph(path.join(REPO_ROOT, "dist/gateway/cli/provision-token.js"));
    expect([...graph.values()].flat()).toContain("node:fs");
  });

  it("bundles from source for the browser platform: what a browser loads first within its budget, the receipt check in a chunk of its own", async () => {
    const result = await build({
      entryPoints: [SOURCE_ENTRY],
      absWorkingDir: REPO_ROOT,
      bundle: true,
      minify: true,
      splitting: true,
      // Never written (write: false): outdir only names the chunks.
      outdir: path.join(REPO_ROOT, "browser-chunks"),
      platform: "browser",
      format: "esm",
      write: false,
      logLevel: "silent",
      metafile: true,
    });
    expect(result.errors).toEqual([]);
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.filter((input) => !input.startsWith("packages/client/src/") && !input.startsWith("node_modules/@noble/") && !input.startsWith("node_modules/msgpackr/"))).toEqual([]);
    // msgpackr's decoder only (msgpackr/unpack), not its encoder.
    expect(inputs.filter((input) => input.startsWith("node_modules/msgpackr/"))).toEqual(["node_modules/msgpackr/unpack.js"]);

    const outputs = result.metafile.outputs;
    const gzipped = new Map(result.outputFiles.map((file) => [path.relative(REPO_ROOT, file.path), gzipSync(file.contents, { level: 9 }).length]));
    const entry = Object.keys(outputs).find((name) => outputs[name]?.entryPoint === path.relative(REPO_ROOT, SOURCE_ENTRY)) as string;
    // The entry's chunk and every chunk it imports statically, transitively: what loads first.
    const first = new Set<string>();
    const lazy = new Set<string>();
    const pending = [entry];
    while (pending.length > 0) {
      const name = pending.pop() as string;
      if (first.has(name)) continue;
      first.add(name);
      for (const imported of outputs[name]?.imports ?? []) {
        if (imported.kind === "import-statement") pending.push(imported.path);
        else lazy.add(imported.path);
      }
    }
    for (const name of first) lazy.delete(name);
    const sum = (names: Iterable<string>): number => [...names].reduce((total, name) => total + (gzipped.get(name) ?? Number.NaN), 0);
    const inputsOf = (names: Iterable<string>): string[] => [...names].flatMap((name) => Object.keys(outputs[name]?.inputs ?? {}));
    const sizes = `first load ${sum(first)} bytes gzipped (${[...first].join(", ")}); lazy ${sum(lazy)} (${[...lazy].join(", ")})`;
    expect(sum(first), sizes).toBeLessThanOrEqual(FIRST_LOAD_BUDGET);
    expect(sum(first) + sum(lazy), sizes).toBeLessThanOrEqual(TOTAL_BUDGET);
    // The proof checks and msgpackr load with the receipt check only.
    const proofMachinery = ["node_modules/msgpackr/unpack.js", "packages/client/src/audit/proof-file.ts", "packages/client/src/audit/key-history.ts", "packages/client/src/audit/proof-verify.ts"];
    expect(inputsOf(first).filter((input) => proofMachinery.includes(input)), sizes).toEqual([]);
    expect(lazy.size, sizes).toBe(1);
    expect(inputsOf(lazy)).toEqual(expect.arrayContaining([...proofMachinery, "packages/client/src/audit/receipt-check.ts"]));
    await expect(build({ stdin: { contents: 'import "node:fs"; import "./packages/client/src/index.ts";', resolveDir: REPO_ROOT, loader: "ts" }, bundle: true, platform: "browser", write: false, logLevel: "silent" })).rejects.toThrow(/node:fs/);
  });
});
