/**
 * engine/audit/merkle (the log's tree) stays portable, as the proof checks it builds on are: those
 * (tree hashes, proof verification and format) are the client package's, which runs in browsers
 * (@market-service/client/audit). Its files import only each other, that package and @noble/hashes,
 * and touch no Node API.
 */
import { readdirSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";

const DIR = path.resolve(import.meta.dirname, "../../../engine/audit/merkle");
const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s*"([^"]+)"|import\(\s*"([^"]+)"\s*\)/g;
const files = readdirSync(DIR).filter((name) => name.endsWith(".ts"));

describe("engine/audit/merkle is portable", () => {
  it("has the tree, the verifier and the format", () => {
    expect(files).toEqual(expect.arrayContaining(["merkle-log.ts", "hash-column.ts", "compact-range.ts"]));
  });

  it("imports only its own files, @market-service/client/audit and @noble/hashes", () => {
    const outside: string[] = [];
    for (const file of files) {
      for (const match of readFileSync(path.join(DIR, file), "utf8").matchAll(IMPORT)) {
        const specifier = (match[1] ?? match[2]) as string;
        const own = specifier.startsWith("./") && !specifier.slice(2).includes("/");
        if (!own && !specifier.startsWith("@noble/hashes/") && specifier !== "@market-service/client/audit") outside.push(`${file} → ${specifier}`);
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
