/**
 * engine/audit/merkle runs in browsers too (the client SDK verifies proofs with it): its files
 * import only each other and @noble/hashes, and touch no Node API.
 */
import { readdirSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";

const DIR = path.resolve(import.meta.dirname, "../../../engine/audit/merkle");
const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s*"([^"]+)"|import\(\s*"([^"]+)"\s*\)/g;
const files = readdirSync(DIR).filter((name) => name.endsWith(".ts"));

describe("engine/audit/merkle is portable", () => {
  it("has the tree, the verifier and the format", () => {
    expect(files).toEqual(expect.arrayContaining(["tree-hash.ts", "merkle-log.ts", "proof-verify.ts", "proof-format.ts"]));
  });

  it("imports only its own files and @noble/hashes", () => {
    const outside: string[] = [];
    for (const file of files) {
      for (const match of readFileSync(path.join(DIR, file), "utf8").matchAll(IMPORT)) {
        const specifier = (match[1] ?? match[2]) as string;
        const own = specifier.startsWith("./") && !specifier.slice(2).includes("/");
        if (!own && !specifier.startsWith("@noble/hashes/")) outside.push(`${file} → ${specifier}`);
      }
    }
    expect(outside).toEqual([]);
  });

  it("uses no Node global (Buffer, process, require)", () => {
    const found: string[] = [];
    for (const file of files) {
      const code = readFileSync(path.join(DIR, file), "utf8").replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, "");
      for (const pattern of [/\bBuffer\b/, /\bprocess\./, /\brequire\(/, /\bglobalThis\b/, /\bnode:/]) {
        if (pattern.test(code)) found.push(`${file}: ${pattern.source}`);
      }
    }
    expect(found).toEqual([]);
  });
});
