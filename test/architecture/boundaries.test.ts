/**
 * The layout shows the architecture, and stays so:
 * - the rules (engine/rules/) import nothing outside themselves but typia's generated validators and
 *   the wire declarations of the client package (@market-service/client/wire), and they and the wire
 *   modules use no Node API, no clock and no randomness;
 * - the client package (packages/client/) imports nothing of the service: the service imports it,
 *   never the reverse;
 * - the actor engine (engine/) and storage (storage/) do not reach into the protocol edge (gateway/);
 * - no module of engine/, gateway/ or storage/ takes part in an import cycle, and no folder of
 *   engine/, gateway/, storage/ or packages/client/src/ does either: at every depth (each folder on
 *   its own, and each folder with everything under it), the imports between folders go one way, so
 *   the rooms stack in layers (docs/architecture.md, "Layout") and a room can be read knowing only
 *   the rooms below it;
 * - the benches (bench/) import nothing from test/ nor from dist/: what both benches and tests use
 *   lives where both may import it (scripts/, the service's own modules), and a bench runs the
 *   built service as a child process, never imports the build.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import * as path from "node:path";
import madge from "madge";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
const RULES = path.join(ROOT, "engine/rules");

function sourcesUnder(dir: string, extensions: readonly string[] = [".ts"]): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sourcesUnder(full, extensions);
    return extensions.some((extension) => name.endsWith(extension)) ? [full] : [];
  });
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s*"([^"]+)"|import\(\s*"([^"]+)"\s*\)/g;

describe("engine/rules", () => {
  const files = sourcesUnder(RULES);

  it("has the deciders of every mechanism", () => {
    const names = files.map((file) => path.relative(RULES, file));
    for (const mechanism of ["market", "direct-claim", "sealed-auction", "commitment", "identity"]) {
      expect(names).toContain(`${mechanism}/decide.ts`);
      expect(names).toContain(`${mechanism}/evolve.ts`);
    }
  });

  it("imports only engine/rules, the wire declarations and typia's runtime (from the generated validators)", () => {
    const outside: string[] = [];
    for (const file of files) {
      for (const match of readFileSync(file, "utf8").matchAll(IMPORT)) {
        const specifier = (match[1] ?? match[2]) as string;
        if (specifier.startsWith(".")) {
          const target = path.resolve(path.dirname(file), specifier);
          if (!target.startsWith(`${RULES}${path.sep}`)) outside.push(`${path.relative(ROOT, file)} → ${specifier}`);
        } else if (!(specifier === "typia" || specifier.startsWith("typia/lib/internal/") || specifier === "@market-service/client/wire")) {
          outside.push(`${path.relative(ROOT, file)} → ${specifier}`);
        }
      }
    }
    expect(outside).toEqual([]);
  });

  // The wire declarations and encodings the rules import (packages/client/src/wire/) are held to the same.
  it("reads no clock, draws no randomness and touches no Node API, nor do the wire modules it imports", () => {
    const impure: string[] = [];
    for (const file of [...files, ...sourcesUnder(path.join(ROOT, "packages/client/src/wire"))]) {
      const code = readFileSync(file, "utf8").replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, "");
      for (const pattern of [/Date\.now\(/, /new Date\(\)/, /Math\.random\(/, /performance\.now\(/, /\bBuffer\b/, /\bprocess\./, /\brequire\(/, /crypto\./]) {
        if (pattern.test(code)) impure.push(`${path.relative(ROOT, file)}: ${pattern.source}`);
      }
    }
    expect(impure).toEqual([]);
  });

  // A rule's answer depends on its arguments alone. The one module state allowed is the last answer
  // of each time conversion (decision I64), which changes no result; anything else would be state
  // shared by every market of a shard.
  it("keeps no module state but the time conversions' last answers", () => {
    const state: string[] = [];
    for (const file of files) {
      for (const line of readFileSync(file, "utf8").split("\n")) {
        if (/^(?:export\s+)?(?:let|var)\s/.test(line)) state.push(`${path.relative(ROOT, file)}: ${line}`);
      }
    }
    expect(state.filter((line) => !/^engine\/rules\/common\/time\.ts: let (?:lastWrittenMs|lastWritten|lastRead|lastReadMs)\b/.test(line))).toEqual([]);
  });
});

describe("packages/client", () => {
  it("imports only its own modules and its declared dependencies (typia's tag types, as types only)", () => {
    const CLIENT = path.join(ROOT, "packages/client");
    const manifest = JSON.parse(readFileSync(path.join(CLIENT, "package.json"), "utf8")) as { dependencies: Record<string, string> };
    const allowed = Object.keys(manifest.dependencies);
    const files = sourcesUnder(path.join(CLIENT, "src"));
    expect(files.length).toBeGreaterThan(10);
    const outside: string[] = [];
    for (const file of files) {
      for (const match of readFileSync(file, "utf8").matchAll(IMPORT)) {
        const specifier = (match[1] ?? match[2]) as string;
        if (specifier.startsWith(".")) {
          if (!path.resolve(path.dirname(file), specifier).startsWith(`${CLIENT}${path.sep}`)) outside.push(`${path.relative(ROOT, file)} → ${specifier}`);
        } else if (specifier === "typia") {
          if (match[0].trim() !== 'import type { tags } from "typia"') outside.push(`${path.relative(ROOT, file)} → typia, beyond its tag types: ${match[0].trim()}`);
        } else if (!allowed.some((name) => specifier === name || specifier.startsWith(`${name}/`))) {
          outside.push(`${path.relative(ROOT, file)} → ${specifier}`);
        }
      }
    }
    expect(outside).toEqual([]);
  });
});

describe("engine/ and storage/", () => {
  it("import nothing from gateway/ (the protocol edge)", () => {
    const inward: string[] = [];
    for (const dir of ["engine", "storage"]) {
      for (const file of sourcesUnder(path.join(ROOT, dir))) {
        for (const match of readFileSync(file, "utf8").matchAll(IMPORT)) {
          const specifier = (match[1] ?? match[2]) as string;
          if (!specifier.startsWith(".")) continue;
          const target = path.relative(ROOT, path.resolve(path.dirname(file), specifier));
          if (target.startsWith("gateway/")) inward.push(`${path.relative(ROOT, file)} → ${target}`);
        }
      }
    }
    expect(inward).toEqual([]);
  });
});

describe("bench/", () => {
  // Every form a module can name another in, either quote: `import … from`, `export … from`, a
  // bare `import "…"`, and `import("…")`.
  const ANY_IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s*["']([^"']+)["']|(?:^|\n)\s*import\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

  it("imports nothing from test/ nor from dist/ (the built service is run, never imported)", () => {
    const files = sourcesUnder(path.join(ROOT, "bench"), [".ts", ".mts", ".js", ".mjs"]);
    expect(files.length).toBeGreaterThan(0);
    const reaching: string[] = [];
    for (const file of files) {
      for (const match of readFileSync(file, "utf8").matchAll(ANY_IMPORT)) {
        const specifier = (match[1] ?? match[2] ?? match[3]) as string;
        // The package's own name resolves, through package.json "exports", to dist/.
        const target = specifier.startsWith(".") ? path.relative(ROOT, path.resolve(path.dirname(file), specifier)) : specifier;
        if (/^(?:test|dist)(?:\/|$)/.test(target) || /^market-service(?:\/|$)/.test(specifier)) reaching.push(`${path.relative(ROOT, file)} → ${specifier}`);
      }
    }
    expect(reaching).toEqual([]);
  });
});

describe("imports", () => {
  it("form no cycle in engine/, gateway/ or storage/", async () => {
    const graph = await madge(["engine", "gateway", "storage"].map((dir) => path.join(ROOT, dir)), {
      fileExtensions: ["ts"],
      tsConfig: path.join(ROOT, "tsconfig.json"),
      excludeRegExp: [/\/generated\//],
    });
    expect(graph.circular()).toEqual([]);
  });
});

describe("folders", () => {
  // Every form a module can name another in: `import … from`, `export … from`, a bare `import "…"`, `import("…")`.
  const ANY_IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s*["']([^"']+)["']|(?:^|\n)\s*import\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;
  const TREES = ["engine", "gateway", "storage", "packages/client/src"];

  /** Each relative import between two files of the trees, as the folders (relative to ROOT) of both. */
  function folderImports(): Array<{ from: string; to: string; site: string }> {
    const imports: Array<{ from: string; to: string; site: string }> = [];
    for (const tree of TREES) {
      for (const file of sourcesUnder(path.join(ROOT, tree)).filter((name) => !name.endsWith(".d.ts"))) {
        if (file.includes(`${path.sep}node_modules${path.sep}`)) continue;
        for (const match of readFileSync(file, "utf8").matchAll(ANY_IMPORT)) {
          const specifier = (match[1] ?? match[2] ?? match[3]) as string;
          if (!specifier.startsWith(".")) continue;
          const from = path.relative(ROOT, path.dirname(file));
          const to = path.relative(ROOT, path.dirname(path.resolve(path.dirname(file), specifier)));
          imports.push({ from, to, site: `${path.relative(ROOT, file)} → ${specifier}` });
        }
      }
    }
    return imports;
  }

  /** The cycles (strongly connected groups of more than one folder) of a graph, each with the imports inside it. */
  function cycles(edges: Map<string, Map<string, string[]>>): string[][] {
    let next = 0;
    const index = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const onStack = new Set<string>();
    const found: string[][] = [];
    const visit = (node: string): void => {
      index.set(node, next);
      low.set(node, next);
      next += 1;
      stack.push(node);
      onStack.add(node);
      for (const target of edges.get(node)?.keys() ?? []) {
        if (!index.has(target)) {
          visit(target);
          low.set(node, Math.min(low.get(node) as number, low.get(target) as number));
        } else if (onStack.has(target)) {
          low.set(node, Math.min(low.get(node) as number, index.get(target) as number));
        }
      }
      if (low.get(node) !== index.get(node)) return;
      const group: string[] = [];
      let member: string;
      do {
        member = stack.pop() as string;
        onStack.delete(member);
        group.push(member);
      } while (member !== node);
      if (group.length > 1) {
        const sites = group.flatMap((a) => [...(edges.get(a) ?? [])].filter(([b]) => group.includes(b)).map(([b, list]) => `${a} → ${b}: ${list.join(", ")}`));
        found.push([group.sort().join(" ⇄ "), ...sites.sort()]);
      }
    };
    for (const node of new Set([...edges.keys(), ...[...edges.values()].flatMap((targets) => [...targets.keys()])])) if (!index.has(node)) visit(node);
    return found;
  }

  it("import one another one way only, at every depth", () => {
    const imports = folderImports();
    expect(imports.length).toBeGreaterThan(500);
    const deepest = Math.max(...imports.flatMap(({ from, to }) => [from, to].map((folder) => folder.split("/").length)));
    const found: string[][] = [];
    // Depth d: a folder d levels deep stands for everything under it; a shallower folder for its own files.
    // At the deepest depth every folder stands for its own files only.
    for (let depth = 1; depth <= deepest; depth += 1) {
      const edges = new Map<string, Map<string, string[]>>();
      for (const { from, to, site } of imports) {
        const a = from.split("/").slice(0, depth).join("/");
        const b = to.split("/").slice(0, depth).join("/");
        if (a === b) continue;
        const targets = edges.get(a) ?? new Map<string, string[]>();
        targets.set(b, [...(targets.get(b) ?? []), site]);
        edges.set(a, targets);
      }
      for (const cycle of cycles(edges)) found.push([`depth ${depth}: ${cycle[0]}`, ...cycle.slice(1)]);
    }
    expect(found).toEqual([]);
  });
});
