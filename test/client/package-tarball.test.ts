/**
 * The client package as an outside project gets it: `npm pack` in packages/client makes the tarball
 * (its built files and README only), a scratch project outside the repository installs it from the tarball, and
 * type-checks a file that uses it strictly, as a browser project would: lib DOM and ES2022, no Node
 * types, skipLibCheck off, with NodeNext resolution and with a bundler's. Zero errors, and no
 * declaration of the service, of typia or of Node may be needed. A negative control proves the
 * check can fail: the same project, with one declaration of the package made to name typia and
 * Buffer (what the SDK's declarations did when it was part of the service), reports both. Last,
 * esbuild bundles the installed package for the browser.
 *
 * The same project type-checks docs/client.md's examples marked `<!-- type-checked -->`, each as a
 * file of its own, as a reader who installed the package would compile them (their `@ts-expect-error`
 * lines too: a published union that widened would leave one unused, an error).
 *
 * Installing reaches the npm registry for the package's dependencies (@noble/ed25519, @noble/hashes,
 * msgpackr), as an outside project's install does. `npm test` builds the package before vitest runs.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const REPO_ROOT = path.resolve(import.meta.dirname, "../..");
const PACKAGE = path.join(REPO_ROOT, "packages/client");
const TSC = createRequire(import.meta.url).resolve("typescript/bin/tsc");

/** A file that uses the package as a browser app would: the client, its errors, receipts and wire types. */
const USAGE = `import { ERROR_CODES, Ed25519Session, MarketClient, MarketServiceError, errorGuards, parseReceipt, type AuditKeyList, type CreateMarketBody, type Event, type IdentityFile, type Market, type MarketRecord, type MarketServiceErrorCode, type Receipt, type ReceiptCheck } from "@market-service/client";
import type { Commitment, DirectClaimBody, LogHead } from "@market-service/client/wire";
import { checkReceiptProof, verifyInclusion } from "@market-service/client/audit";

const body: CreateMarketBody = {
  commandId: "c1",
  marketId: "table-7",
  principalId: "alice",
  subject: { schema: "table.v1", data: { seats: 4 } },
  mechanism: { presetId: "direct-claim.v1", config: { capacity: 1, pricing: { mode: "free" }, confirmation: "none" } },
};
const claim: DirectClaimBody = { commandId: "k1", principalId: "bob" };
declare const identity: IdentityFile;
const client = new MarketClient({ baseUrl: "http://127.0.0.1:8080", credentials: new Ed25519Session(identity) });

export async function run(head: LogHead | undefined, keys: AuditKeyList): Promise<void> {
  try {
    const created = await client.createMarket(body);
    const market: Market = created.body.market;
    const record: MarketRecord = await client.getMarketRecord(market.id);
    const events: Event[] = record.events;
    const commitments: Commitment[] = record.commitments;
    const receipt: Receipt | null = created.receipt;
    const kept: Receipt | null = JSON.parse(JSON.stringify(receipt)) as Receipt | null;
    const rootHash: string | undefined = kept?.head.rootHash;
    if (kept !== null) {
      const checked: ReceiptCheck = await client.checkReceipt(kept, keys, { command: { type: "market.create_draft", marketId: market.id, commandId: created.commandId, actorId: "alice" } });
      if (checked.outcome === "proven") console.log(checkReceiptProof(checked.proofFile, keys).outcome);
    }
    const outcome = await client.getMyOutcome(market.id, { forPrincipal: { principalId: "carol", authorityRef: "d-1" } });
    console.log(market.version, events.length, commitments.length, rootHash, outcome.commitments.length, head?.treeSize, claim, parseReceipt("{}").ok, ERROR_CODES.length, verifyInclusion);
  } catch (error) {
    if (errorGuards.capacity_exhausted(error) || errorGuards.unreachable(error)) console.log("full, or no answer");
    else if (error instanceof MarketServiceError) {
      const code: MarketServiceErrorCode = error.code;
      const commandId: string | undefined = error.commandId;
      console.log(code, commandId);
    }
  }
}

// @ts-expect-error: the wire shapes are exact (an unknown member is an error)
export const wrong: DirectClaimBody = { commandId: "k1", principalId: "bob", extra: 1 };
`;

/** docs/client.md's TypeScript examples marked as complete programs, in order. */
const DOC_EXAMPLES = [...readFileSync(path.join(REPO_ROOT, "docs/client.md"), "utf8").matchAll(/^<!-- type-checked -->\n```ts\n([\s\S]*?)^```$/gm)].map((match) => match[1] as string);
const DOC_EXAMPLE_FILES = DOC_EXAMPLES.map((_, index) => `client-md-example-${index + 1}.ts`);

const COMPILER_OPTIONS = { lib: ["DOM", "ES2022"], types: [], skipLibCheck: false, strict: true, target: "ES2022", noEmit: true };

let work: string;
let tarball: string;
let packed: string[];
let project: string;

/** tsc on `tsconfig` in `dir`: its exit status and what it printed. */
function typecheck(dir: string, tsconfig: string): { status: number | null; output: string } {
  const result = spawnSync(process.execPath, [TSC, "-p", path.join(dir, tsconfig)], { cwd: dir, encoding: "utf8" });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

beforeAll(() => {
  expect(existsSync(path.join(PACKAGE, "dist/index.js")), "run npm run build first").toBe(true);
  work = mkdtempSync(path.join(tmpdir(), "client-tarball-"));
  // --ignore-scripts: pack what the build made, never rebuild dist/ under the other tests' feet.
  const report = JSON.parse(execFileSync("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", work], { cwd: PACKAGE, encoding: "utf8" })) as Array<{ filename: string; files: Array<{ path: string }> }>;
  const [entry] = report;
  if (entry === undefined) throw new Error("npm pack reported no tarball");
  tarball = path.join(work, entry.filename);
  packed = entry.files.map((file) => file.path).sort();

  project = path.join(work, "scratch");
  mkdirSync(project);
  writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "scratch", private: true, type: "module" }));
  const started = performance.now();
  // --omit=optional: msgpackr's optional native accelerator (msgpackr-extract) is not what the client uses.
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--omit=optional", "--prefer-offline", tarball], { cwd: project, stdio: "pipe" });
  console.log(`installed ${path.basename(tarball)} (${packed.length} files) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  writeFileSync(path.join(project, "main.ts"), USAGE);
  DOC_EXAMPLES.forEach((example, index) => writeFileSync(path.join(project, DOC_EXAMPLE_FILES[index] as string), example));
  const files = ["main.ts", ...DOC_EXAMPLE_FILES];
  writeFileSync(path.join(project, "tsconfig.json"), JSON.stringify({ compilerOptions: { ...COMPILER_OPTIONS, module: "NodeNext", moduleResolution: "NodeNext" }, files }));
  writeFileSync(path.join(project, "tsconfig.bundler.json"), JSON.stringify({ compilerOptions: { ...COMPILER_OPTIONS, module: "ESNext", moduleResolution: "Bundler" }, files }));
}, 120_000);

afterAll(() => {
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

describe("the client package's tarball", () => {
  it("holds only its manifest, its README and its built files: ES modules and bundled declarations", () => {
    expect(packed).toContain("package.json");
    expect(packed).toContain("README.md");
    expect(packed).toContain("dist/index.js");
    expect(packed).toEqual(expect.arrayContaining(["dist/index.d.ts", "dist/wire.d.ts", "dist/audit.d.ts"]));
    expect(packed.filter((file) => file !== "package.json" && file !== "README.md" && !/^dist\/(?:[\w-]+\/)*[\w-]+\.js$/.test(file) && !/^dist\/[\w-]+\.d\.ts$/.test(file))).toEqual([]);
    const manifest = JSON.parse(readFileSync(path.join(project, "node_modules/@market-service/client/package.json"), "utf8")) as { dependencies: Record<string, string> };
    expect(Object.keys(manifest.dependencies).sort()).toEqual(["@noble/ed25519", "@noble/hashes", "msgpackr"]);
  });

  it("type-checks in a strict browser project (DOM + ES2022, no Node types, skipLibCheck off), NodeNext and Bundler resolution", () => {
    for (const tsconfig of ["tsconfig.json", "tsconfig.bundler.json"]) {
      const { status, output } = typecheck(project, tsconfig);
      expect(output, tsconfig).toBe("");
      expect(status, tsconfig).toBe(0);
    }
    // What the check read: the package's declarations and the file, nothing of typia, Node or the service.
    const files = execFileSync(process.execPath, [TSC, "-p", path.join(project, "tsconfig.json"), "--listFilesOnly"], { cwd: project, encoding: "utf8" }).split("\n").filter((file) => file !== "" && !file.includes("/typescript/lib/"));
    expect(files.map((file) => path.relative(project, file)).sort()).toEqual(["main.ts", ...DOC_EXAMPLE_FILES, ...packed.filter((file) => file.endsWith(".d.ts")).map((file) => `node_modules/@market-service/client/${file}`)].sort());
  });

  it("docs/client.md's marked examples are among what that check compiled: the first program after the install, the typed mechanisms and events, and the receipt check", () => {
    expect(DOC_EXAMPLES.length).toBeGreaterThanOrEqual(3);
    expect(DOC_EXAMPLES.join("\n")).toMatch(/client\.checkReceipt\(accepted\.receipt, keys/);
    expect(DOC_EXAMPLES[0]).toMatch(/^import \{[^}]*\bMarketClient\b[^}]*\} from "@market-service\/client";$/m);
    expect(DOC_EXAMPLES.join("\n")).toMatch(/@ts-expect-error/);
  });

  it("a doc example that does not compile fails the check (negative control)", () => {
    const broken = path.join(work, "broken-doc");
    cpSync(project, broken, { recursive: true });
    const example = path.join(broken, DOC_EXAMPLE_FILES[0] as string);
    writeFileSync(example, readFileSync(example, "utf8").replace('presetId: "direct-claim.v1"', 'presetId: "direct-claim.v2"'));
    const { status, output } = typecheck(broken, "tsconfig.json");
    expect(status).not.toBe(0);
    expect(output).toMatch(/client-md-example-1\.ts.*"direct-claim\.v2"/);
  });

  it("the check fails where a declaration needs typia or Node (negative control)", () => {
    const broken = path.join(work, "broken");
    cpSync(project, broken, { recursive: true });
    const declarations = path.join(broken, "node_modules/@market-service/client/dist/wire.d.ts");
    copyFileSync(declarations, `${declarations}.orig`);
    writeFileSync(declarations, `import type { tags } from "typia";\nexport type Tagged = string & tags.MinLength<1>;\nexport type Bytes = Buffer;\n${readFileSync(`${declarations}.orig`, "utf8")}`);
    const { status, output } = typecheck(broken, "tsconfig.json");
    expect(status).not.toBe(0);
    expect(output).toMatch(/Cannot find module 'typia'/);
    expect(output).toMatch(/Cannot find name 'Buffer'/);
  });

  it("bundles for the browser from the installed package", async () => {
    const result = await build({ entryPoints: [path.join(project, "main.ts")], absWorkingDir: project, bundle: true, minify: true, platform: "browser", format: "esm", write: false, logLevel: "silent", metafile: true });
    expect(result.errors).toEqual([]);
    const modules = Object.keys(result.metafile.inputs).filter((input) => input.startsWith("node_modules/")).map((input) => input.split("/").slice(1, input.startsWith("node_modules/@") ? 3 : 2).join("/"));
    expect([...new Set(modules)].sort()).toEqual(["@market-service/client", "@noble/ed25519", "@noble/hashes", "msgpackr"]);
    const bytes = (result.outputFiles[0] as { contents: Uint8Array }).contents;
    console.log(`browser bundle of main.ts: ${bytes.length} bytes minified, ${gzipSync(bytes, { level: 9 }).length} gzipped`);
  });
});
