/**
 * The single binary (`dist/market-service`, docs/deploy.md) from the outside: built (or reused when
 * up to date) by build/build-binary.ts, copied to a fresh temporary directory with no node_modules,
 * and run from there with a clean environment (no NODE_OPTIONS, no NODE_PATH) and a private TMPDIR,
 * so the native addons come from the executable and nowhere else.
 *
 * Run with `npm run test:binary` (build/vitest.binary.config.ts sets MARKET_SERVICE_BINARY_TEST=1).
 * `npm test` collects this file through its default include but skips it: building the binary
 * takes ~10 s and ~100 MB of disk.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import canonicalize from "canonicalize";
import { Packr } from "msgpackr";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { replayMarketRecord } from "../../engine/replay/audit-replay.js";
import { ManualClock } from "../../engine/clock.js";
import { openFileShard } from "../../engine/runtime/shard-core.js";
import { CRC32_ASSET, POOL_WORKER_ASSET, uwsAssetName } from "../../engine/binary/assets.js";
import { msgpackSamples, packedDigest } from "../../gateway/sea/msgpack-samples.js";
import { SERVICE_VERSION } from "../../gateway/api/version.js";
import { PAGE_FILES, PAGE_HTML } from "../../gateway/page/generated/page-assets.js";
import { T0, commands, directClaim, request } from "../runtime/support.js";
import { freePort } from "../../scripts/free-port.js";
import { NatsCluster } from "../../scripts/nats-cluster.js";
import { clusterSigningKeyFile } from "../../scripts/cluster-signing-key.js";

const ENABLED = process.env["MARKET_SERVICE_BINARY_TEST"] === "1";
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const BUILT = path.join(ROOT, "dist", "market-service");
const OPERATOR = "ops";
const OPERATOR_SECRET = "binary-test-operator-secret-0123456789abcdef";

interface Run {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

let work: string; // fresh directory holding the copied binary; no node_modules anywhere above it
let exe: string;
let addonTmp: string; // TMPDIR for the binary: where it extracts its addons

function sha256Hex(data: Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

function baseEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { PATH: process.env["PATH"] ?? "/usr/bin:/bin", HOME: work, TMPDIR: addonTmp, LANG: "C", ...extra };
}

function runBinary(args: readonly string[], env: NodeJS.ProcessEnv = baseEnv(), timeoutMs = 60_000): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(exe, args, { cwd: work, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.once("error", reject);
    child.once("close", (status, signal) => {
      clearTimeout(timer);
      resolve({ status, signal, stdout, stderr });
    });
  });
}


interface Server {
  child: ChildProcess;
  url: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  output: () => string;
}

async function startServer(dataDir: string, port: number, extraEnv: Record<string, string> = {}): Promise<Server> {
  const env = baseEnv({
    HOST: "127.0.0.1",
    PORT: String(port),
    DATA_DIR: dataDir,
    ...(extraEnv["CLUSTER_NATS_URLS"] === undefined ? { SHARDS: "2" } : {}),
    LOG_LEVEL: "warn",
    SERVICE_HMAC_SECRETS: `${OPERATOR}=${OPERATOR_SECRET}`,
    SERVICE_OPERATOR_ACTORS: OPERATOR,
    ...extraEnv,
  });
  // No arguments: `serve` is the default command.
  const child = spawn(exe, [], { cwd: work, env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the binary exited during start-up:\n${output}`);
    try {
      const response = await fetch(`${url}/healthz`);
      if (response.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`no /healthz within 30 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { child, url, exited, output: () => output };
}

async function stopServer(server: Server): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  server.child.kill("SIGTERM");
  return server.exited;
}

async function call(url: string, method: "GET" | "POST", pathAndQuery: string, token: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${url}${pathAndQuery}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text === "" ? undefined : JSON.parse(text) };
}

interface SelfCheck {
  ok: boolean;
  version: string;
  addonCacheRoot: string;
  addons: Array<{ asset: string; file: string; sha256: string; bytes: number; extracted: boolean }>;
  uws: { native: boolean };
  crc32c: { checks: number; matchesPortable: boolean };
  msgpackr: { nativeAcceleration: boolean; samples: number; roundTrips: boolean; packedSha256: string };
  loggedCommandRoundTrip: boolean;
}

async function selfCheck(env: NodeJS.ProcessEnv = baseEnv()): Promise<SelfCheck> {
  const run = await runBinary([], { ...env, MARKET_SERVICE_SELF_CHECK: "1" });
  expect(run.stderr).toBe("");
  expect(run.status).toBe(0);
  return JSON.parse(run.stdout) as SelfCheck;
}

describe.skipIf(!ENABLED)("single binary dist/market-service", () => {
  beforeAll(() => {
    // Build, or reuse dist/market-service when its manifest says the inputs are unchanged.
    const build = spawnSync(process.execPath, ["--import", "tsx", path.join(ROOT, "build", "build-binary.ts"), "--if-stale"], {
      cwd: ROOT,
      encoding: "utf8",
      timeout: 280_000,
    });
    if (build.status !== 0) throw new Error(`build:binary failed (status ${build.status}):\n${build.stdout}${build.stderr}`);
    work = fs.mkdtempSync(path.join(os.tmpdir(), "market-service-binary-"));
    exe = path.join(work, "market-service");
    fs.copyFileSync(BUILT, exe);
    fs.chmodSync(exe, 0o755);
    addonTmp = path.join(work, "tmp");
    fs.mkdirSync(addonTmp, { mode: 0o700 });
    // Nothing the binary could load a package from.
    for (let dir = work; ; dir = path.dirname(dir)) {
      expect(fs.existsSync(path.join(dir, "node_modules")), `${dir}/node_modules`).toBe(false);
      if (dir === path.dirname(dir)) break;
    }
  }, 300_000);

  afterAll(() => {
    if (work !== undefined) fs.rmSync(work, { recursive: true, force: true });
  });

  it("--version and -V print the service version", async () => {
    for (const flag of ["--version", "-V"]) {
      const run = await runBinary([flag]);
      expect(run).toMatchObject({ status: 0, stderr: "" });
      expect(run.stdout.trim()).toBe(SERVICE_VERSION);
    }
  });

  it("--help works on the program and on every command", async () => {
    const top = await runBinary(["--help"]);
    expect(top.status).toBe(0);
    for (const command of ["serve", "replay", "verify", "provision", "token"]) expect(top.stdout).toMatch(new RegExp(`^\\s+${command}\\b`, "m"));
    expect(top.stdout).toMatch(/-V, --version/);
    for (const command of ["serve", "replay", "verify", "provision", "token"]) {
      const run = await runBinary([command, "--help"]);
      expect(run.status, `${command} --help`).toBe(0);
      expect(run.stdout).toMatch(new RegExp(`^Usage: market-service ${command} `, "m"));
    }
    expect((await runBinary(["serve", "--help"])).stdout).toMatch(/SERVICE_HMAC_SECRETS/);
    expect((await runBinary(["help", "verify"])).stdout).toMatch(/^Usage: market-service verify /m);
  });

  it("extracts each addon once into a private directory and reuses it (self-check: uWS native, CRC-32C, msgpackr pure JS)", async () => {
    const first = await selfCheck();
    expect(first.ok).toBe(true);
    expect(first.version).toBe(SERVICE_VERSION);
    expect(first.addonCacheRoot).toBe(addonTmp);
    expect(first.uws.native).toBe(true);
    expect(first.crc32c.matchesPortable).toBe(true);
    expect(first.loggedCommandRoundTrip).toBe(true);

    // The embedded addons are byte-identical to the installed ones, extracted as documented.
    const sources: Record<string, string> = {
      [uwsAssetName()]: path.join(ROOT, "node_modules/@trufflesuite/uws-js-unofficial/binaries", uwsAssetName()),
      [CRC32_ASSET]: path.join(ROOT, "node_modules/@node-rs/crc32-linux-x64-gnu", CRC32_ASSET),
    };
    expect(first.addons.map((a) => a.asset).sort()).toEqual(Object.keys(sources).sort());
    const inodes = new Map<string, number>();
    for (const addon of first.addons) {
      const expected = sha256Hex(fs.readFileSync(sources[addon.asset] as string));
      expect(addon.sha256).toBe(expected);
      expect(addon.file).toBe(path.join(addonTmp, `market-service-${expected.slice(0, 16)}`, addon.asset));
      expect(sha256Hex(fs.readFileSync(addon.file))).toBe(expected);
      expect(fs.statSync(path.dirname(addon.file)).mode & 0o777).toBe(0o700);
      expect(fs.statSync(addon.file).mode & 0o777).toBe(0o500);
      inodes.set(addon.file, fs.statSync(addon.file).ino);
    }
    // (The --version/--help runs above already extracted them in this TMPDIR: nothing is rewritten.)
    const again = await selfCheck();
    expect(again.addons.every((a) => !a.extracted)).toBe(true);
    for (const addon of again.addons) expect(fs.statSync(addon.file).ino).toBe(inodes.get(addon.file));

    // A fresh TMPDIR: both are extracted; and only the temp-then-rename result is left behind.
    const freshTmp = fs.mkdtempSync(path.join(work, "fresh-"));
    const fresh = await selfCheck(baseEnv({ TMPDIR: freshTmp }));
    expect(fresh.addons.every((a) => a.extracted)).toBe(true);
    for (const addon of fresh.addons) expect(fs.readdirSync(path.dirname(addon.file))).toEqual([addon.asset]);

    // msgpackr runs without its native extractor inside the binary, and encodes exactly like the
    // normal install (which has the extractor); the binary round-tripped every sample.
    expect(first.msgpackr.nativeAcceleration).toBe(false);
    expect(first.msgpackr.roundTrips).toBe(true);
    const samples = msgpackSamples();
    expect(first.msgpackr.samples).toBe(samples.length);
    expect(first.msgpackr.packedSha256).toBe(packedDigest(new Packr({ useRecords: false, moreTypes: false }), samples));
  });

  it("replaces a corrupted extracted addon instead of loading it", async () => {
    const check = await selfCheck();
    const uws = check.addons.find((a) => a.asset === uwsAssetName());
    expect(uws).toBeDefined();
    const file = (uws as { file: string }).file;
    fs.chmodSync(file, 0o700);
    fs.writeFileSync(file, "not an ELF file");
    fs.chmodSync(file, 0o500);
    const repaired = await selfCheck();
    expect(repaired.uws.native).toBe(true);
    expect(repaired.addons.find((a) => a.asset === uwsAssetName())?.extracted).toBe(true);
    expect(sha256Hex(fs.readFileSync(file))).toBe((uws as { sha256: string }).sha256);
  });

  it("runs replay/verify threads from the worker pool module, extracted only when needed, checked by hash, reused, and replaced when corrupted", async () => {
    // A stopped service's data directory, written by the normal install: two shards, three markets each.
    const dataDir = path.join(work, "pool-data");
    const clock = new ManualClock(T0);
    for (const shardIndex of [0, 1]) {
      const dir = path.join(dataDir, "shards", String(shardIndex).padStart(2, "0"));
      fs.mkdirSync(dir, { recursive: true });
      const { core } = await openFileShard({ dir, shardIndex, clock });
      for (let m = 0; m < 3; m += 1) {
        const marketId = `pool-${shardIndex}-${m}`;
        clock.advance(5);
        await core.processBatch([request(commands.create("alice", marketId, directClaim({ capacity: 2, pricing: { mode: "free" }, confirmation: "none" }))), request(commands.publish("alice", marketId))]);
        clock.advance(5);
        await core.processBatch([request(commands.claim("bob", marketId)), request(commands.claim("carol", marketId))]);
      }
      await core.snapshot();
      core.close();
    }
    const manifest = JSON.parse(fs.readFileSync(`${BUILT}.manifest.json`, "utf8")) as { assets: Record<string, { sha256: string }> };
    const sha256 = manifest.assets[POOL_WORKER_ASSET]?.sha256 as string;
    expect(sha256).toMatch(/^[0-9a-f]{64}$/);
    const tmp = fs.mkdtempSync(path.join(work, "pool-tmp-"));
    const env = baseEnv({ TMPDIR: tmp });
    const file = path.join(tmp, `market-service-${sha256.slice(0, 16)}`, POOL_WORKER_ASSET);

    // One thread audits in the main thread: the pool, and so its module, is never needed.
    const inMainThread = await runBinary(["verify", "--data", dataDir, "--threads", "1", "--json"], env);
    expect(inMainThread.status, inMainThread.stderr).toBe(0);
    expect(fs.existsSync(file)).toBe(false);

    // Two threads: the module is extracted as documented, and the threads' answer is the main thread's.
    const onThreads = await runBinary(["verify", "--data", dataDir, "--threads", "2", "--json"], env);
    expect(onThreads.status, onThreads.stderr).toBe(0);
    const markets = (run: Run) => (JSON.parse(run.stdout) as { ok: boolean; replay: { markets: unknown[] } }).replay.markets;
    expect(markets(onThreads)).toHaveLength(6);
    expect(markets(onThreads)).toEqual(markets(inMainThread));
    expect(sha256Hex(fs.readFileSync(file))).toBe(sha256);
    expect(fs.statSync(file).mode & 0o777).toBe(0o500);
    expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    expect(fs.readdirSync(path.dirname(file))).toEqual([POOL_WORKER_ASSET]);

    // Reused as it is by the next run.
    const inode = fs.statSync(file).ino;
    const replayed = await runBinary(["replay", "--data", dataDir, "--threads", "2", "--json"], env);
    expect(replayed.status, replayed.stderr).toBe(0);
    expect(fs.statSync(file).ino).toBe(inode);

    // A copy that differs (here: tasks that would answer nothing) is replaced, not run.
    fs.chmodSync(file, 0o700);
    fs.writeFileSync(file, "module.exports = {};\n");
    fs.chmodSync(file, 0o500);
    const repaired = await runBinary(["verify", "--data", dataDir, "--threads", "2", "--json"], env);
    expect(repaired.status, repaired.stderr).toBe(0);
    expect(markets(repaired)).toEqual(markets(inMainThread));
    expect(sha256Hex(fs.readFileSync(file))).toBe(sha256);
  });

  it("refuses to start, with one clear line, when the uWS addon cannot be extracted or loaded", async () => {
    const port = await freePort();
    const uwsSha = sha256Hex(fs.readFileSync(path.join(ROOT, "node_modules/@trufflesuite/uws-js-unofficial/binaries", uwsAssetName())));
    const serveEnv = (tmp: string) =>
      baseEnv({
        TMPDIR: tmp,
        PORT: String(port),
        DATA_DIR: path.join(work, "refused-data"),
        SERVICE_HMAC_SECRETS: `${OPERATOR}=${OPERATOR_SECRET}`,
        SERVICE_OPERATOR_ACTORS: OPERATOR,
      });

    // (1) Someone else's (here: a group/world-writable) directory where the uWS addon would go, as
    // could be planted in a shared /tmp: never loaded from. The CRC-32 addon is extracted fine.
    const planted = fs.mkdtempSync(path.join(work, "planted-"));
    const uwsDir = path.join(planted, `market-service-${uwsSha.slice(0, 16)}`);
    fs.mkdirSync(uwsDir);
    fs.chmodSync(uwsDir, 0o777);
    const insecure = await runBinary(["serve"], serveEnv(planted));
    expect(insecure.status).toBe(1);
    expect(insecure.stdout).toBe("");
    expect(insecure.stderr).toBe(
      `market-service: cannot extract the embedded uWebSockets.js native addon to ${path.join(uwsDir, uwsAssetName())}: ` +
        `${uwsDir} has mode 0777; it must be 0700 (no access for group or others). ` +
        `Addons are extracted once under os.tmpdir() (${planted}; set TMPDIR to choose another directory), which must be writable by this user.\n`,
    );
    expect(fs.readdirSync(uwsDir)).toEqual([]);

    // (2) The uWS target directory cannot be created (its place is taken by a regular file).
    const blocked = fs.mkdtempSync(path.join(work, "blocked-"));
    fs.writeFileSync(path.join(blocked, `market-service-${uwsSha.slice(0, 16)}`), "");
    const notDir = await runBinary([], serveEnv(blocked));
    expect(notDir.status).toBe(1);
    expect(notDir.stderr).toMatch(/^market-service: cannot extract the embedded uWebSockets\.js native addon to .*: .* exists and is not a directory\. /);
    expect(notDir.stderr.split("\n").filter((line) => line !== "")).toHaveLength(1);

    // Whatever the cause: no fallback, no server. (The package's ws emulation is not in the binary.)
    for (const run of [insecure, notDir]) expect(run.stderr + run.stdout).not.toMatch(/fall|emulat|NodeJS implementation/i);
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
    expect(fs.existsSync(path.join(work, "refused-data", "shards"))).toBe(false);
  });

  it("serves, provisions, issues tokens, survives a restart, and its data verifies and replays to the same record hash", async () => {
    const dataDir = path.join(work, "data");
    const port = await freePort();
    let server = await startServer(dataDir, port);
    const operatorEnv = baseEnv({ SERVICE_HMAC_ACTOR: OPERATOR, SERVICE_HMAC_SECRET: OPERATOR_SECRET });

    // Identities and tokens through the binary's own client commands.
    const tokens: Record<string, string> = {};
    for (const principal of ["alice", "bob"]) {
      const identityFile = path.join(work, `${principal}.json`);
      const provisioned = await runBinary(["provision", "--principal", principal, "--out", identityFile, "--url", server.url], operatorEnv);
      expect(provisioned.status, provisioned.stderr).toBe(0);
      expect(fs.statSync(identityFile).mode & 0o777).toBe(0o600);
      const token = await runBinary(["token", "--identity", identityFile], baseEnv());
      expect(token.status, token.stderr).toBe(0);
      tokens[principal] = token.stdout.trim();
      expect(tokens[principal]).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    }
    const alice = tokens["alice"] as string;
    const bob = tokens["bob"] as string;

    // A direct-claim market: create, publish, claim (bob).
    const marketId = "table-7";
    const created = await call(server.url, "POST", "/v1/markets", alice, {
      commandId: "c1",
      marketId,
      principalId: "alice",
      subject: { schema: "table.v1", data: { seats: 4, note: "Fensterplatz — 窓際 😀" } },
      mechanism: { presetId: "direct-claim.v1", config: { capacity: 1, pricing: { mode: "free" }, confirmation: "none" } },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const published = await call(server.url, "POST", `/v1/markets/${marketId}/publish`, alice, { commandId: "c2", principalId: "alice", expectedVersion: 1 });
    expect(published.status, JSON.stringify(published.body)).toBe(200);
    const claimed = await call(server.url, "POST", `/v1/markets/${marketId}/direct-claims`, bob, { commandId: "k1", principalId: "bob" });
    expect(claimed.status, JSON.stringify(claimed.body)).toBe(200);
    expect(claimed.body.commitments).toHaveLength(1);
    expect(claimed.body.commitments[0].participantPrincipalId).toBe("bob");

    const market = await call(server.url, "GET", `/v1/markets/${marketId}`, alice);
    expect(market.status).toBe(200);
    const record = await call(server.url, "GET", `/v1/markets/${marketId}/record`, alice);
    expect(record.status).toBe(200);
    const recordHash = record.body.integrity.recordHash as string;
    expect(recordHash).toMatch(/^sha256:[0-9a-f]{64}$/);
    const canonical = canonicalize({ market: record.body.market, commands: record.body.commands, commitments: record.body.commitments, events: record.body.events });
    expect(`sha256:${sha256Hex(Buffer.from(canonical as string, "utf8"))}`).toBe(recordHash);

    // One process per data directory, the binary too: a second server and an audit of the live
    // directory are refused at once, naming the holder, and leave the first server serving.
    const second = await runBinary([], baseEnv({ HOST: "127.0.0.1", PORT: String(await freePort()), DATA_DIR: dataDir, LOG_LEVEL: "warn" }));
    expect(second.status).toBe(1);
    expect(second.stderr).toContain(`data directory ${dataDir} is in use by process ${server.child.pid}`);
    const liveVerify = await runBinary(["verify", "--data", dataDir]);
    expect(liveVerify.status).toBe(1);
    expect(liveVerify.stderr).toContain(`is in use by process ${server.child.pid} (market-service serve`);
    expect((await call(server.url, "GET", `/v1/markets/${marketId}`, alice)).status).toBe(200);

    // SIGTERM: drain, snapshot, exit 0.
    expect(await stopServer(server)).toEqual({ code: 0, signal: null });

    // Restart on the same data: the state is there.
    server = await startServer(dataDir, port);
    const after = await call(server.url, "GET", `/v1/markets/${marketId}`, alice);
    expect(after.status).toBe(200);
    expect(after.body.market).toEqual(market.body.market);
    const recordAfter = await call(server.url, "GET", `/v1/markets/${marketId}/record`, alice);
    expect(recordAfter.body.integrity.recordHash).toBe(recordHash);
    // Idempotency survived the restart too: the same claim is answered, not re-applied.
    const retried = await call(server.url, "POST", `/v1/markets/${marketId}/direct-claims`, bob, { commandId: "k1", principalId: "bob" });
    expect(retried.status).toBe(200);
    expect(retried.body.commitments[0].id).toBe(claimed.body.commitments[0].id);
    expect(await stopServer(server)).toEqual({ code: 0, signal: null });
    expect(server.output()).not.toMatch(/"level":"(error|fatal)"/);

    // Audit the stopped service's data with the binary: two shards, audited on two worker pool
    // threads (the pool's module is an embedded asset, extracted to a file).
    const verify = await runBinary(["verify", "--data", dataDir, "--threads", "2"]);
    expect(verify.status, verify.stderr).toBe(0);
    expect(verify.stdout).toContain(`${recordHash}  ${marketId}`);
    const replay = await runBinary(["replay", "--data", dataDir, "--market", marketId, "--json"]);
    expect(replay.status, replay.stderr).toBe(0);
    const replayed = JSON.parse(replay.stdout) as { integrity: { recordHash: string }; commands: unknown[] };
    expect(replayed.integrity.recordHash).toBe(recordHash);
    expect(replayed.commands).toHaveLength(3);

    // The log the binary wrote (msgpackr in pure JS) replays identically with the normal install
    // (msgpackr's native extractor, @node-rs/crc32 from node_modules).
    expect(replayMarketRecord(dataDir, marketId)?.integrity.recordHash).toBe(recordHash);
  });

  it("serves the live page and the files it names from memory (GET /, GET /ui/<name>)", async () => {
    const server = await startServer(path.join(work, "page-data"), await freePort());
    try {
      const page = await fetch(`${server.url}/`);
      expect(page.status).toBe(200);
      expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(page.headers.get("cache-control")).toBe("no-cache");
      expect(await page.text()).toBe(PAGE_HTML);
      const named = [...PAGE_HTML.matchAll(/"\/ui\/([^"]+)"/g)].map((m) => m[1] as string);
      expect(named.sort()).toEqual(PAGE_FILES.map((f) => f.name).sort());
      for (const file of PAGE_FILES) {
        const response = await fetch(`${server.url}/ui/${file.name}`);
        expect(response.status, file.name).toBe(200);
        expect(response.headers.get("content-type")).toMatch(file.name.endsWith(".js") ? /^text\/javascript/ : /^text\/css/);
        expect(response.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
        expect(await response.text()).toBe(file.text);
      }
      const missing = await fetch(`${server.url}/ui/app-000000000000.js`);
      expect(missing.status).toBe(404);
      expect(((await missing.json()) as { error: { code: string } }).error.code).toBe("not_found");
    } finally {
      expect(await stopServer(server)).toEqual({ code: 0, signal: null });
    }
  });

  it("is a cluster node when configured so (same binary): two binaries on a real 3-node NATS cluster answer each other's markets", async () => {
    const nats = await NatsCluster.start();
    const servers: Server[] = [];
    try {
      // A cluster signs with one key (a node with another is refused): outside both data directories.
      const keyFile = clusterSigningKeyFile(path.join(work, "cluster-key"));
      // A snapshot after every command: each partition's state goes through the object store, whose
      // digests the binary computes with node:crypto (which the NATS client loads with an import()).
      const clusterEnv = (nodeId: string): Record<string, string> => ({ CLUSTER_NATS_URLS: nats.urls.join(","), CLUSTER_NODE_ID: nodeId, CLUSTER_PARTITIONS: "4", AUDIT_SIGNING_KEY_FILE: keyFile, CLUSTER_SNAPSHOT_EVERY_COMMANDS: "1" });
      for (const nodeId of ["a", "b"]) {
        servers.push(await startServer(path.join(work, `cluster-${nodeId}`), await freePort(), clusterEnv(nodeId)));
      }
      const [a, b] = servers as [Server, Server];
      const operatorEnv = baseEnv({ SERVICE_HMAC_ACTOR: OPERATOR, SERVICE_HMAC_SECRET: OPERATOR_SECRET });
      const tokens: Record<string, string> = {};
      for (const principal of ["carol", "dave"]) {
        const identityFile = path.join(work, `cluster-${principal}.json`);
        const provisioned = await runBinary(["provision", "--principal", principal, "--out", identityFile, "--url", a.url], operatorEnv);
        expect(provisioned.status, provisioned.stderr).toBe(0);
        const token = await runBinary(["token", "--identity", identityFile], baseEnv());
        expect(token.status, token.stderr).toBe(0);
        tokens[principal] = token.stdout.trim();
      }
      const carol = tokens["carol"] as string;
      const dave = tokens["dave"] as string;
      // Until every partition has an owner the nodes answer 503: wait for the create to go through.
      const create = { commandId: "cc1", marketId: "cluster-table", principalId: "carol", subject: { schema: "table.v1", data: { seats: 2 } }, mechanism: { presetId: "direct-claim.v1", config: { capacity: 2, pricing: { mode: "free" }, confirmation: "none" } } };
      let created = await call(a.url, "POST", "/v1/markets", carol, create);
      for (let attempt = 0; created.status === 503 && attempt < 100; attempt += 1) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        created = await call(a.url, "POST", "/v1/markets", carol, create);
      }
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const published = await call(b.url, "POST", "/v1/markets/cluster-table/publish", carol, { commandId: "cc2", principalId: "carol", expectedVersion: 1 });
      expect(published.status, JSON.stringify(published.body)).toBe(200);
      const claimed = await call(b.url, "POST", "/v1/markets/cluster-table/direct-claims", dave, { commandId: "ck1", principalId: "dave" });
      expect(claimed.status, JSON.stringify(claimed.body)).toBe(200);
      const seen = await Promise.all([a, b].map((server) => call(server.url, "GET", "/v1/markets/cluster-table", carol)));
      expect(seen.map((answer) => answer.body.version)).toEqual([3, 3]);

      // Node a alone again: it takes every partition over from the snapshots the two wrote, read
      // back and checked against their digests (a snapshot it could not read would be named in
      // snapshotIgnored, and its partition replayed from the stream instead).
      for (const server of servers.splice(0)) await stopServer(server);
      const again = await startServer(path.join(work, "cluster-a"), await freePort(), { ...clusterEnv("a"), LOG_LEVEL: "info" });
      servers.push(again);
      let read = await call(again.url, "GET", "/v1/markets/cluster-table", carol);
      for (let attempt = 0; read.status === 503 && attempt < 100; attempt += 1) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        read = await call(again.url, "GET", "/v1/markets/cluster-table", carol);
      }
      expect(read.status, JSON.stringify(read.body)).toBe(200);
      expect(read.body.version).toBe(3);
      // The log is written asynchronously: wait for the line of the market's partition.
      const acquiredLines = (): Array<{ markets: number; commandsReplayed: number; snapshotIgnored?: string }> =>
        again
          .output()
          .split("\n")
          .filter((line) => line.includes('"partition acquired"'))
          .map((line) => JSON.parse(line) as { markets: number; commandsReplayed: number; snapshotIgnored?: string });
      for (let attempt = 0; !acquiredLines().some((line) => line.markets > 0) && attempt < 100; attempt += 1) await new Promise((resolve) => setTimeout(resolve, 100));
      const acquired = acquiredLines();
      const withMarket = acquired.filter((line) => line.markets > 0);
      expect(withMarket, again.output()).toHaveLength(1);
      expect(withMarket[0]).toMatchObject({ markets: 1, commandsReplayed: 0 });
      expect(acquired.filter((line) => line.snapshotIgnored !== undefined), again.output()).toEqual([]);
    } finally {
      await Promise.all(servers.map((server) => stopServer(server)));
      await nats.stop();
    }
  });
});
