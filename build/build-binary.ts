/**
 * `npm run build:binary`: builds `dist/market-service`, a Node 20 single executable application
 * (SEA) for Linux x64 that runs without node_modules. Steps:
 *
 *  0. The live page's files are rebuilt into their module (build/build-page.ts), which main.cjs
 *     bundles like any other: the binary serves the page from memory.
 *  1. esbuild bundles the TypeScript sources (not dist/) into four CommonJS files:
 *       main.cjs          gateway/sea/main.ts → gateway/cli/cli.ts (serve, replay, verify, provision, token)
 *       shard-worker.cjs  engine/runtime/shard-worker.ts (embedded as an asset, run with eval: true)
 *       journal-worker.cjs engine/journal/journal-worker.ts (the identity log's thread; likewise)
 *       pool-worker.cjs   the worker pool's threads (engine/pool/): the tasks of
 *                         engine/pool-worker/pool-tasks.ts as the file's exports, then piscina's own
 *                         thread runner (its dist/worker.js). piscina
 *                         starts a thread from a file only, so the binary extracts this one
 *                         (engine/binary/pool-worker-file.ts), and the runner finds the tasks in it.
 *     The SEA main script's `require` only loads builtins, so everything else is bundled. Some
 *     packages are substituted or patched (see `seaAliases`): the uWS and CRC-32 packages by loaders
 *     of the embedded addons (engine/binary/uws-addon.ts, crc32-addon.ts); msgpackr's optional native
 *     extractor by an empty module (msgpackr then decodes in pure JS, silently); piscina's optional
 *     @napi-rs/nice by a module that throws (piscina loads it only for its niceIncrement option, which
 *     is not used, and ignores a failure); and the one line where piscina names its runner file
 *     (`__dirname`/worker.js, which in the binary would be beside the executable) by the extracted
 *     pool-worker.cjs.
 *  2. `node --experimental-sea-config` writes the blob: main script + assets (worker bundles, the
 *     uWS addon for this Node ABI, the @node-rs/crc32 linux-x64-gnu addon).
 *  3. A copy of this Node executable is stripped (if `strip` exists; --no-strip keeps symbols) and
 *     the blob is injected with postject (sentinel fuse NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2).
 *  4. Smoke test of the new executable (`--version`, and the self-check: addons load natively,
 *     CRC-32C and msgpackr round-trips), then an atomic rename to dist/market-service and a manifest
 *     dist/market-service.manifest.json (input fingerprint, sizes, SHA-256s).
 *
 * Options: --if-stale  reuse dist/market-service when the manifest's input fingerprint (bundles,
 *                      assets, node executable, options) matches and the binary is intact
 *          --no-strip  do not strip the Node executable (≈12 MB larger, keeps symbols)
 *          --out FILE  output path (default dist/market-service)
 */
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";
import { CRC32_ASSET, JOURNAL_WORKER_ASSET, POOL_WORKER_ASSET, SHARD_WORKER_ASSET, uwsAssetName } from "../engine/binary/assets.js";
import { SERVICE_VERSION } from "../gateway/api/version.js";
import { writePageAssets } from "./build-page.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const SENTINEL_FUSE = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2";
/** Bump when the build's output changes for the same inputs (part of the fingerprint). */
const BUILD_FORMAT = 3;

interface Options {
  ifStale: boolean;
  strip: boolean;
  out: string;
}

function parseArgs(argv: readonly string[]): Options {
  const options: Options = { ifStale: false, strip: true, out: path.join(ROOT, "dist", "market-service") };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (arg === "--if-stale") options.ifStale = true;
    else if (arg === "--no-strip") options.strip = false;
    else if (arg === "--out" && argv[i + 1] !== undefined) options.out = path.resolve(argv[++i] as string);
    else throw new Error(`unknown argument ${String(arg)} (allowed: --if-stale, --no-strip, --out FILE)`);
  }
  return options;
}

const log = (message: string) => process.stderr.write(`build:binary: ${message}\n`);

function sha256(data: Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

function sha256File(file: string): string {
  const hash = createHash("sha256");
  const fd = fs.openSync(file, "r");
  try {
    const buffer = Buffer.alloc(1 << 20);
    for (;;) {
      const n = fs.readSync(fd, buffer, 0, buffer.length, null);
      if (n === 0) break;
      hash.update(buffer.subarray(0, n));
    }
  } finally {
    fs.closeSync(fd);
  }
  return hash.digest("hex");
}

/** piscina's dist/ directory (its package exports only the entry points, so it is found from main.js). */
function piscinaDistDir(): string {
  return path.dirname(createRequire(path.join(ROOT, "package.json")).resolve("piscina"));
}

/** The line of piscina's dist/index.js that names the file every pool thread starts from. */
const PISCINA_RUNNER_LINE = "filename: (0, node_path_1.resolve)(__dirname, 'worker.js'),";

/** Build-time substitutions: see the file comment. Everything else is bundled as is. */
const seaAliases: esbuild.Plugin = {
  name: "market-service-sea-aliases",
  setup(build) {
    build.onLoad({ filter: /[\\/]node_modules[\\/]piscina[\\/]dist[\\/]index\.js$/ }, (args) => {
      const source = fs.readFileSync(args.path, "utf8");
      const found = source.split(PISCINA_RUNNER_LINE).length - 1;
      // A piscina whose source differs would silently start threads from a missing file: refuse.
      if (found !== 1) throw new Error(`${args.path}: expected the line ${JSON.stringify(PISCINA_RUNNER_LINE)} once, found it ${found} times (piscina changed?)`);
      const runner = `require(${JSON.stringify(path.join(ROOT, "engine/binary/pool-worker-file.ts"))}).seaPoolWorkerFile()`;
      return { contents: source.replace(PISCINA_RUNNER_LINE, `filename: ${runner},`), loader: "js", resolveDir: path.dirname(args.path) };
    });
    build.onResolve({ filter: /^@napi-rs\/nice$/ }, () => ({ path: "@napi-rs/nice", namespace: "sea-stub" }));
    build.onResolve({ filter: /^@trufflesuite\/uws-js-unofficial$/ }, () => ({ path: path.join(ROOT, "engine/binary/uws-addon.ts") }));
    build.onResolve({ filter: /^@node-rs\/crc32$/ }, () => ({ path: path.join(ROOT, "engine/binary/crc32-addon.ts") }));
    build.onResolve({ filter: /^msgpackr-extract$/ }, () => ({ path: "msgpackr-extract", namespace: "sea-stub" }));
    build.onLoad({ filter: /.*/, namespace: "sea-stub" }, (args) =>
      args.path === "@napi-rs/nice"
        ? {
            // piscina's runner loads it (in a .catch(noop)) only when niceIncrement is set, which the
            // pool does not do (pool-tasks.ts lowers the replay threads' priority itself).
            contents: 'throw new Error("@napi-rs/nice is not in the single binary");\n',
            loader: "js",
          }
        : {
            // msgpackr does `extractor = require('msgpackr-extract'); if (extractor) setExtractor(...)` in a
            // try/catch: null leaves its pure-JS string decoding in place, without a warning.
            contents: "// msgpackr-extract cannot be loaded inside the single binary: msgpackr decodes in pure JS.\nmodule.exports = null;\n",
            loader: "js",
          },
    );
  },
};

/** Inputs that must never be in a bundle: they would mean a silent fallback or a missing file. */
const FORBIDDEN_INPUTS: Array<[RegExp, string]> = [
  [/node_modules\/@trufflesuite\/uws-js-unofficial\//, "the uWS package loader (and its ws fallback)"],
  [/node_modules\/ws\//, "the ws package (uWS emulation)"],
  [/node_modules\/@node-rs\/crc32\//, "the napi-rs loader of @node-rs/crc32"],
  [/node_modules\/msgpackr-extract\//, "msgpackr-extract"],
  [/node_modules\/node-gyp-build/, "node-gyp-build (native addon lookup on disk)"],
  [/node_modules\/tsx\//, "tsx"],
];

/** `entry`: a source file, or the contents of an entry module (resolved from the repository root). */
async function bundle(entry: string | { contents: string; name: string }, outfile: string): Promise<esbuild.Metafile> {
  const name = typeof entry === "string" ? entry : entry.name;
  const result = await esbuild.build({
    absWorkingDir: ROOT,
    ...(typeof entry === "string" ? { entryPoints: [path.join(ROOT, entry)] } : { stdin: { contents: entry.contents, resolveDir: ROOT, sourcefile: entry.name, loader: "js" as const } }),
    outfile,
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    // CommonJS has no import.meta. Its uses are not reached in the binary: gateway/main.ts's "run
    // when executed directly" check is false, engine/runtime/shard-host.ts and
    // engine/journal/worker-journal.ts take the embedded worker (engine/binary/embedded-worker.ts)
    // and engine/pool/worker-file.ts the extracted pool module before they look at their own URL.
    define: { "import.meta.url": "undefined" },
    plugins: [seaAliases],
    metafile: true,
    logLevel: "warning",
    legalComments: "eof",
  });
  if (result.errors.length > 0) throw new Error(`esbuild failed for ${name}`);
  for (const input of Object.keys(result.metafile.inputs)) {
    for (const [pattern, what] of FORBIDDEN_INPUTS) {
      if (pattern.test(input)) throw new Error(`${name}: the bundle contains ${what} (${input}); the SEA aliases did not apply`);
    }
  }
  return result.metafile;
}

function resolveAssets(): Record<string, string> {
  const requireFromRoot = createRequire(path.join(ROOT, "package.json"));
  const uwsDir = path.dirname(requireFromRoot.resolve("@trufflesuite/uws-js-unofficial/package.json"));
  const uws = path.join(uwsDir, "binaries", uwsAssetName());
  // The platform package is an optional dependency of @node-rs/crc32: resolve it from there.
  const crcRequire = createRequire(requireFromRoot.resolve("@node-rs/crc32/package.json"));
  const crcPackage = crcRequire.resolve("@node-rs/crc32-linux-x64-gnu/package.json");
  const crcMain = (JSON.parse(fs.readFileSync(crcPackage, "utf8")) as { main: string }).main;
  const crc = path.join(path.dirname(crcPackage), crcMain);
  for (const file of [uws, crc]) if (!fs.existsSync(file)) throw new Error(`native addon ${file} is missing (run npm ci)`);
  return { [uwsAssetName()]: uws, [CRC32_ASSET]: crc };
}

function run(command: string, args: readonly string[], cwd: string): string {
  const result = spawnSync(command, args, { cwd, encoding: "utf8", maxBuffer: 64 << 20 });
  if (result.status !== 0) {
    throw new Error(`${path.basename(command)} ${args.join(" ")} failed (${result.error?.message ?? `status ${result.status}`})\n${result.stdout}${result.stderr}`);
  }
  return `${result.stdout}${result.stderr}`;
}

function commandExists(name: string): string | undefined {
  const found = spawnSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" });
  const location = found.stdout.trim();
  return found.status === 0 && location !== "" ? location : undefined;
}

interface Manifest {
  fingerprint: string;
  version: string;
  node: string;
  platform: string;
  stripped: boolean;
  sizeBytes: number;
  sha256: string;
  buildMs: number;
  bundles: Record<string, { bytes: number; sha256: string }>;
  assets: Record<string, { source: string; bytes: number; sha256: string }>;
}

/** Runs the new executable once: --version, and the self-check (addons, CRC-32C, msgpackr). */
function smokeTest(exe: string, workDir: string): void {
  const tmp = fs.mkdtempSync(path.join(workDir, "smoke-tmp-"));
  const env: NodeJS.ProcessEnv = { PATH: process.env["PATH"] ?? "/usr/bin:/bin", TMPDIR: tmp };
  const version = execFileSync(exe, ["--version"], { env, encoding: "utf8", cwd: tmp }).trim();
  if (version !== SERVICE_VERSION) throw new Error(`smoke test: --version printed ${JSON.stringify(version)}, expected ${SERVICE_VERSION}`);
  const check = spawnSync(exe, [], { env: { ...env, MARKET_SERVICE_SELF_CHECK: "1" }, encoding: "utf8", cwd: tmp });
  let report: { ok?: boolean } = {};
  try {
    report = JSON.parse(check.stdout) as { ok?: boolean };
  } catch {
    // reported below
  }
  if (check.status !== 0 || report.ok !== true) throw new Error(`smoke test: self-check failed (status ${check.status})\n${check.stdout}${check.stderr}`);
  fs.rmSync(tmp, { recursive: true, force: true });
}

async function main(): Promise<void> {
  const started = performance.now();
  const options = parseArgs(process.argv.slice(2));
  if (process.platform !== "linux" || process.arch !== "x64") throw new Error(`the single binary is built for Linux x64 only (this is ${process.platform}-${process.arch})`);
  const sea = process.getBuiltinModule("node:sea") as { isSea?: () => boolean } | undefined;
  if (sea?.isSea === undefined) throw new Error(`Node ${process.version} has no node:sea; use Node 20.19+`);

  // 0. The page's module is an input of main.cjs: current before bundling (and so in the fingerprint).
  await writePageAssets();
  fs.mkdirSync(path.join(ROOT, "dist"), { recursive: true });
  const workDir = fs.mkdtempSync(path.join(ROOT, "dist", ".binary-build-"));
  try {
    // 1. bundles
    const mainBundle = path.join(workDir, "main.cjs");
    const workerBundle = path.join(workDir, "shard-worker.cjs");
    const journalWorkerBundle = path.join(workDir, "journal-worker.cjs");
    const poolWorkerBundle = path.join(workDir, "pool-worker.cjs");
    await bundle("gateway/sea/main.ts", mainBundle);
    await bundle("engine/runtime/shard-worker.ts", workerBundle);
    await bundle("engine/journal/journal-worker.ts", journalWorkerBundle);
    await bundle(
      {
        name: "pool-worker (engine/pool-worker/pool-tasks.ts + piscina's thread runner)",
        contents:
          "// The worker pool's thread module in the single binary (build/build-binary.ts): the tasks are this file's exports, then piscina's runner starts.\n" +
          `module.exports = require(${JSON.stringify(path.join(ROOT, "engine/pool-worker/pool-tasks.ts"))});\n` +
          `require(${JSON.stringify(path.join(piscinaDistDir(), "worker.js"))});\n`,
      },
      poolWorkerBundle,
    );
    const bundles: Manifest["bundles"] = {};
    for (const [name, file] of [["main.cjs", mainBundle], ["shard-worker.cjs", workerBundle], ["journal-worker.cjs", journalWorkerBundle], ["pool-worker.cjs", poolWorkerBundle]] as const) {
      const bytes = fs.readFileSync(file);
      bundles[name] = { bytes: bytes.length, sha256: sha256(bytes) };
    }

    // 2. assets, SEA config, fingerprint
    const assetFiles: Record<string, string> = {
      [SHARD_WORKER_ASSET]: workerBundle,
      [JOURNAL_WORKER_ASSET]: journalWorkerBundle,
      [POOL_WORKER_ASSET]: poolWorkerBundle,
      ...resolveAssets(),
    };
    const assets: Manifest["assets"] = {};
    for (const [name, file] of Object.entries(assetFiles)) {
      const bytes = fs.readFileSync(file);
      assets[name] = { source: path.relative(ROOT, file).startsWith("dist") ? `(bundle) ${path.basename(file)}` : path.relative(ROOT, file), bytes: bytes.length, sha256: sha256(bytes) };
    }
    // Paths relative to the work directory (node runs there): the blob records the main script's
    // path, and a random temporary directory name would make every build differ.
    const seaConfig = {
      main: "main.cjs",
      output: "sea-prep.blob",
      disableExperimentalSEAWarning: true,
      useSnapshot: false,
      useCodeCache: false,
      assets: { ...assetFiles, [SHARD_WORKER_ASSET]: "shard-worker.cjs", [JOURNAL_WORKER_ASSET]: "journal-worker.cjs", [POOL_WORKER_ASSET]: "pool-worker.cjs" },
    };
    const stripTool = options.strip ? commandExists("strip") : undefined;
    if (options.strip && stripTool === undefined) log("`strip` not found (binutils); the Node executable is embedded unstripped");
    const nodeSha256 = sha256File(process.execPath);
    const fingerprint = sha256(
      Buffer.from(
        JSON.stringify({
          BUILD_FORMAT,
          node: { version: process.version, sha256: nodeSha256 },
          stripped: stripTool !== undefined,
          bundles,
          assets: Object.fromEntries(Object.entries(assets).map(([name, a]) => [name, a.sha256])),
          seaConfig: { ...seaConfig, assets: Object.keys(assetFiles) },
        }),
      ),
    );

    const manifestFile = `${options.out}.manifest.json`;
    if (options.ifStale && fs.existsSync(options.out) && fs.existsSync(manifestFile)) {
      const previous = JSON.parse(fs.readFileSync(manifestFile, "utf8")) as Partial<Manifest>;
      if (previous.fingerprint === fingerprint && previous.sha256 === sha256File(options.out)) {
        log(`${path.relative(ROOT, options.out)} is up to date (${((performance.now() - started) / 1000).toFixed(1)} s)`);
        return;
      }
    }

    // 3. blob, node copy, strip, inject
    const seaConfigFile = path.join(workDir, "sea-config.json");
    writeJson(seaConfigFile, seaConfig);
    run(process.execPath, ["--experimental-sea-config", seaConfigFile], workDir);
    const exe = path.join(workDir, "market-service");
    fs.copyFileSync(process.execPath, exe);
    fs.chmodSync(exe, 0o755);
    if (stripTool !== undefined) run(stripTool, ["--strip-all", exe], workDir);
    const postjectCli = createRequire(path.join(ROOT, "package.json")).resolve("postject/dist/cli.js");
    run(process.execPath, [postjectCli, exe, "NODE_SEA_BLOB", path.join(workDir, seaConfig.output), "--sentinel-fuse", SENTINEL_FUSE], workDir);

    // 4. smoke test, publish, manifest
    smokeTest(exe, workDir);
    const sizeBytes = fs.statSync(exe).size;
    const manifest: Manifest = {
      fingerprint,
      version: SERVICE_VERSION,
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
      stripped: stripTool !== undefined,
      sizeBytes,
      sha256: sha256File(exe),
      buildMs: Math.round(performance.now() - started),
      bundles,
      assets,
    };
    fs.mkdirSync(path.dirname(options.out), { recursive: true });
    fs.renameSync(exe, options.out);
    writeJson(manifestFile, manifest);
    log(
      `${path.relative(ROOT, options.out)}: ${sizeBytes.toLocaleString("en-US")} bytes (${(sizeBytes / 2 ** 20).toFixed(1)} MiB), ` +
        `Node ${process.version}${manifest.stripped ? " stripped" : ""}, main bundle ${bundles["main.cjs"]?.bytes.toLocaleString("en-US")} B, ` +
        `worker bundles ${bundles["shard-worker.cjs"]?.bytes.toLocaleString("en-US")} B + ${bundles["pool-worker.cjs"]?.bytes.toLocaleString("en-US")} B, built in ${(manifest.buildMs / 1000).toFixed(1)} s`,
    );
  } finally {
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}

function writeJson(file: string, value: unknown): void {
  fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`build:binary: FAILED: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
