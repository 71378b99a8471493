/**
 * Builds the package into dist/:
 *  1. tsc compiles src/ to one ES module per source file (dist/**\/*.js), and writes per-module
 *     declarations to build/types/;
 *  2. rollup-plugin-dts bundles those declarations into one file per entry point (dist/index.d.ts,
 *     dist/wire.d.ts, dist/audit.d.ts, and a chunk they share). The wire declarations carry typia's
 *     type tags (`string & tags.MaxLength<128>`: the service's validators are generated from them);
 *     the bundle inlines the few tag types they use, from typia's own declarations, so the published
 *     types import nothing but each other and @noble/msgpackr's, and a project without typia
 *     type-checks them with skipLibCheck off.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";
import { rollup } from "rollup";
import { dts } from "rollup-plugin-dts";

const HERE = import.meta.dirname;
const require = createRequire(import.meta.url);
const TYPES = path.join(HERE, "build/types");
const ENTRIES = { index: "index.d.ts", wire: "wire/index.d.ts", audit: "audit/index.d.ts" };
const { dependencies } = JSON.parse(readFileSync(path.join(HERE, "package.json"), "utf8"));

rmSync(path.join(HERE, "dist"), { recursive: true, force: true });
rmSync(TYPES, { recursive: true, force: true });
execFileSync(process.execPath, [require.resolve("typescript/bin/tsc"), "-p", path.join(HERE, "tsconfig.json")], { stdio: "inherit" });

const bundle = await rollup({
  input: Object.fromEntries(Object.entries(ENTRIES).map(([name, file]) => [name, path.join(TYPES, file)])),
  // The runtime dependencies stay imports; everything else (typia's tag types) is inlined.
  external: (id) => Object.keys(dependencies).some((name) => id === name || id.startsWith(`${name}/`)),
  plugins: [dts({ respectExternal: true })],
});
await bundle.write({ dir: path.join(HERE, "dist"), format: "es", entryFileNames: "[name].d.ts", chunkFileNames: "shared.d.ts" });
await bundle.close();
rmSync(path.join(HERE, "build"), { recursive: true, force: true });
