/**
 * The SDK runs in a browser: nothing in its import graph may need Node. Two checks:
 * - the built entry (dist/gateway/client/index.js, what `market-service/client` resolves to) and
 *   every module it imports, followed file by file: every import is relative, an @noble package or msgpackr (portable JavaScript: a receipt's
 *   proven entry is decoded to check it is the sender's command);
 * - esbuild bundles the source entry for the browser platform, where a `node:` import (or any Node
 *   built-in) cannot resolve and fails the build.
 * `npm test` builds dist/ before vitest runs.
 */
import { existsSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";

const REPO_ROOT = path.resolve(import.meta.dirname, "../..");
const BUILT_ENTRY = path.join(REPO_ROOT, "dist/gateway/client/index.js");
const SOURCE_ENTRY = path.join(REPO_ROOT, "gateway/client/index.ts");

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
  it("from the built entry, imports only its own modules, @noble packages and msgpackr", () => {
    expect(existsSync(BUILT_ENTRY), "run npm run build first").toBe(true);
    const graph = importGraph(BUILT_ENTRY);
    expect(graph.size).toBeGreaterThan(5);
    const offending = [...graph].flatMap(([file, bare]) => bare.filter((specifier) => !/^(@noble\/(ed25519|hashes)|msgpackr)(\/|$)/.test(specifier)).map((specifier) => `${path.relative(REPO_ROOT, file)} imports ${specifier}`));
    expect(offending).toEqual([]);
    // It is the gateway's own code and the engine's pure parts: no server, runtime, storage or CLI module.
    const files = [...graph.keys()].map((file) => path.relative(path.join(REPO_ROOT, "dist"), file)).sort();
    expect(files.filter((file) => !/^(gateway\/client|engine\/(audit\/(heads|merkle|signing)|rules\/(types|ids|base64url)))/.test(file))).toEqual([]);
    expect(files).not.toContain("gateway/cli/provision-token.js");
  });

  it("the walker sees a node: import where there is one (the CLI's commands)", () => {
    const graph = importGraph(path.join(REPO_ROOT, "dist/gateway/cli/provision-token.js"));
    expect([...graph.values()].flat()).toContain("node:fs");
  });

  it("bundles from source for the browser platform", async () => {
    const result = await build({ entryPoints: [SOURCE_ENTRY], bundle: true, platform: "browser", format: "esm", write: false, logLevel: "silent", metafile: true });
    expect(result.errors).toEqual([]);
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.filter((input) => input.startsWith("node_modules/") && !input.startsWith("node_modules/@noble/") && !input.startsWith("node_modules/msgpackr/"))).toEqual([]);
    await expect(build({ stdin: { contents: 'import "node:fs"; import "./gateway/client/index.ts";', resolveDir: REPO_ROOT, loader: "ts" }, bundle: true, platform: "browser", write: false, logLevel: "silent" })).rejects.toThrow(/node:fs/);
  });
});
