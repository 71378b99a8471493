/**
 * MCP vs plain HTTP: tool calls per second and latency for the same operations, against one real
 * service, in one run.
 *
 *   node --import tsx bench/mcp.bench.ts [--seconds 5] [--warmup 1] [--concurrency 32] [--rounds 3]
 *                                        [--mode json|sse] [--participants 500] [--only get|claim]
 *                                        [--profile DIR]
 *   node --import tsx bench/mcp.bench.ts --micro [--seconds 3] [--mode json|sse] [--only handle|tool|api]
 *
 * The service runs in a child process (`--serve`, from source through tsx, so the numbers are those
 * of the checkout, not of a stale build), durable as in production (every command reply after its
 * fdatasync), on a fresh temp data dir. The load generator is this process: `--concurrency`
 * requests in flight over keep-alive node:http connections (no SDK client, no undici): hand-written
 * JSON-RPC `tools/call` POSTs with the Accept header Streamable HTTP requires, and the same
 * operation as a plain HTTP request. Both use the same Ed25519 bearer token, so authentication
 * costs the same on both sides.
 *
 *   get_market            ↔ GET  /v1/markets/{id}
 *   submit_direct_claim   ↔ POST /v1/markets/{id}/direct-claims
 *
 * Claims are real, accepted commands: `--participants` provisioned principals each claim once per
 * market (confirmation none, capacity = participants), in fresh markets created before each phase.
 * Every reply is checked (status, and `isError` for MCP); failures are counted and reported.
 * Besides req/s and latency, each phase reports the service's CPU time (user + system, all its
 * threads, from /proc) per request: on a machine shared with other work, req/s swings with the
 * neighbours' load, CPU per request much less.
 *
 * `--profile DIR` starts the service with `--cpu-prof --cpu-prof-dir=DIR` and runs only the MCP
 * phases (the profile is written when the service exits). `--micro` instead measures, in process
 * (tinybench), McpEndpoint.handle() (SDK per-request work, no HTTP) against McpEndpoint.callTool()
 * (the tool alone) and MarketApi.getMarket().
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import * as http from "node:http";
import { cpus, loadavg, tmpdir } from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { MarketClient } from "@market-service/client";
import { percentile } from "./percentile.js";

const THIS_FILE = fileURLToPath(import.meta.url);
const REPO = path.resolve(path.dirname(THIS_FILE), "..");

function arg(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  const value = at > 0 ? process.argv[at + 1] : undefined;
  return value === undefined || value.startsWith("--") ? fallback : value;
}
const flag = (name: string) => process.argv.includes(`--${name}`);

// ---------------------------------------------------------------------------------------------
// Child: the service
// ---------------------------------------------------------------------------------------------

async function serve(): Promise<void> {
  const { startService } = await import("../gateway/service.js");
  const service = await startService({ env: process.env });
  process.stdout.write(`${JSON.stringify({ url: service.url })}\n`);
  const stop = () => {
    service.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

interface Child {
  url: string;
  /** CPU seconds (user + system, all threads: gateway and shard workers) the service used so far. */
  cpuSeconds: () => number;
  stop: () => Promise<void>;
}

const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** utime + stime of a process from /proc (Linux), in seconds. */
function processCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

async function startChild(env: Record<string, string>, profileDir: string | undefined): Promise<Child> {
  const nodeArgs = profileDir === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${profileDir}`];
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, "--import", "tsx", THIS_FILE, "--serve"], {
    cwd: REPO,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let buffered = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      buffered += chunk.toString("utf8");
      const line = buffered.split("\n").find((l) => l.startsWith("{"));
      if (line !== undefined) resolve((JSON.parse(line) as { url: string }).url);
    });
    child.once("exit", (code) => reject(new Error(`service exited early (${code})`)));
  });
  const pid = child.pid as number;
  return {
    url,
    cpuSeconds: () => processCpuSeconds(pid),
    stop: () =>
      new Promise<void>((resolve) => {
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

// ---------------------------------------------------------------------------------------------
// Load generator
// ---------------------------------------------------------------------------------------------

interface Sample {
  label: string;
  requests: number;
  failures: number;
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
  /** Service CPU (all threads) per measured request, in µs: less sensitive to a shared machine than req/s. */
  cpuMicros: number;
  firstFailure?: string;
}

interface Target {
  method: "GET" | "POST";
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** Throws on an unexpected reply. */
  check: (status: number, text: string) => void;
}

function send(agent: http.Agent, base: URL, target: Target): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      { agent, host: base.hostname, port: base.port, method: target.method, path: target.path, headers: target.headers },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
        response.on("error", reject);
      },
    );
    request.on("error", reject);
    request.end(target.body);
  });
}

async function load(label: string, base: URL, next: () => Target, options: { seconds: number; warmup: number; concurrency: number; cpuSeconds: () => number }): Promise<Sample> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.concurrency });
  const latencies: number[] = [];
  let failures = 0;
  let firstFailure: string | undefined;
  const start = performance.now();
  const measureFrom = start + options.warmup * 1000;
  const end = measureFrom + options.seconds * 1000;
  let measuredRequests = 0;
  let cpuAtStart = 0;
  let cpuAtEnd = 0;
  const cpuStart = setTimeout(() => (cpuAtStart = options.cpuSeconds()), options.warmup * 1000);
  const cpuEnd = setTimeout(() => (cpuAtEnd = options.cpuSeconds()), (options.warmup + options.seconds) * 1000);
  await Promise.all(
    Array.from({ length: options.concurrency }, async () => {
      while (performance.now() < end) {
        const target = next();
        const t0 = performance.now();
        let ok = true;
        try {
          const { status, text } = await send(agent, base, target);
          target.check(status, text);
        } catch (error) {
          ok = false;
          firstFailure ??= error instanceof Error ? error.message : String(error);
        }
        const t1 = performance.now();
        if (t0 >= measureFrom && t1 <= end) {
          measuredRequests += 1;
          if (ok) latencies.push(t1 - t0);
          else failures += 1;
        }
      }
    }),
  );
  clearTimeout(cpuStart);
  clearTimeout(cpuEnd);
  if (cpuAtEnd === 0) cpuAtEnd = options.cpuSeconds();
  agent.destroy();
  const sorted = Float64Array.from(latencies).sort();
  return {
    label,
    requests: measuredRequests,
    failures,
    seconds: options.seconds,
    rps: measuredRequests / options.seconds,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    cpuMicros: measuredRequests === 0 ? NaN : ((cpuAtEnd - cpuAtStart) * 1e6) / measuredRequests,
    ...(firstFailure === undefined ? {} : { firstFailure }),
  };
}

function expectStatus(expected: number): Target["check"] {
  return (status, text) => {
    if (status !== expected) throw new Error(`status ${status}: ${text.slice(0, 200)}`);
  };
}

/** A tools/call reply: 200, a JSON-RPC result (JSON or one SSE event), not isError. */
function expectToolResult(status: number, text: string): void {
  if (status !== 200) throw new Error(`status ${status}: ${text.slice(0, 200)}`);
  if (!text.includes('"result"') || text.includes('"isError":true')) throw new Error(`tool failed: ${text.slice(0, 300)}`);
}

const MCP_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

// ---------------------------------------------------------------------------------------------
// Run
// ---------------------------------------------------------------------------------------------

async function pool<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await work(items[next++] as T);
    }),
  );
}

async function main(): Promise<void> {
  const seconds = Number(arg("seconds", "5"));
  const warmup = Number(arg("warmup", "1"));
  const concurrency = Number(arg("concurrency", "32"));
  const rounds = Number(arg("rounds", "3"));
  const participants = Number(arg("participants", "500"));
  const mode = arg("mode", "json");
  const only = arg("only", "all");
  const profileDir = flag("profile") ? path.resolve(arg("profile", path.join(REPO, ".tmp", "mcp-profile"))) : undefined;
  const dataDir = mkdtempSync(path.join(tmpdir(), "mcp-bench-"));
  const secret = randomBytes(32).toString("base64url");
  const child = await startChild(
    {
      DATA_DIR: dataDir,
      HOST: "127.0.0.1",
      PORT: "0",
      LOG_LEVEL: "silent",
      SERVICE_HMAC_SECRETS: `operator=${secret}`,
      SERVICE_OPERATOR_ACTORS: "operator",
      MCP_RESPONSE_MODE: mode,
      AUTH_TOKEN_TTL: "86400",
    },
    profileDir,
  );
  try {
    const client = new MarketClient({ baseUrl: child.url });
    const operator = { actorId: "operator", secret };
    const provision = async (principalId: string) => {
      const identity = await client.provisionNewIdentity({ principalId }, { credentials: { kind: "hmac", ...operator } });
      return (await client.signIn(identity)).accessToken;
    };
    const creatorToken = await provision("bench-creator");
    const tokens: string[] = new Array(participants);
    await pool(
      Array.from({ length: participants }, (_, i) => i),
      16,
      async (i) => {
        tokens[i] = await provision(`p-${i}`);
      },
    );
    const auth = (token: string) => ({ authorization: `Bearer ${token}` });
    let commandSeq = 0;
    const commandId = () => `bench-${++commandSeq}`;
    const createMarket = async (marketId: string, capacity: number) => {
      const created = await client.request(
        "POST",
        "/v1/markets",
        {
          body: {
            commandId: commandId(),
            marketId,
            principalId: "bench-creator",
            subject: { schema: "bench.v1", data: { lane: "HAM-RTM", slots: capacity } },
            mechanism: { presetId: "direct-claim.v1", config: { capacity, pricing: { mode: "free" }, confirmation: "none" } },
          },
          credentials: { kind: "bearer", token: creatorToken },
        },
      );
      if (created.status !== 201) throw new Error(`create failed: ${created.text}`);
      const published = await client.request("POST", `/v1/markets/${marketId}/publish`, { body: { commandId: commandId(), principalId: "bench-creator", expectedVersion: 1 }, credentials: { kind: "bearer", token: creatorToken } });
      if (published.status !== 200) throw new Error(`publish failed: ${published.text}`);
    };
    await createMarket("read-me", 10);
    const base = new URL(child.url);
    const reader = tokens[0] as string;
    let marketSeq = 0;
    /** Fresh markets for one claim phase: each participant claims once in each, in order. */
    const claimTargets = async (kind: "http" | "mcp"): Promise<() => Target> => {
      // Enough for 20k claims/s over the phase; running past it would turn claims into 409s (counted as failures).
      const count = Math.ceil(((seconds + warmup) * 20_000) / participants);
      const markets = Array.from({ length: count }, () => `claims-${++marketSeq}`);
      await pool(markets, 8, (marketId) => createMarket(marketId, participants));
      let i = 0;
      return () => {
        const index = i++;
        const token = tokens[index % participants] as string;
        const marketId = markets[Math.floor(index / participants) % markets.length] as string;
        const principalId = `p-${index % participants}`;
        if (kind === "http") {
          return { method: "POST", path: `/v1/markets/${marketId}/direct-claims`, headers: { "content-type": "application/json", ...auth(token) }, body: JSON.stringify({ commandId: commandId(), principalId }), check: expectStatus(200) };
        }
        const body = JSON.stringify({ jsonrpc: "2.0", id: index, method: "tools/call", params: { name: "submit_direct_claim", arguments: { commandId: commandId(), marketId, principalId } } });
        return { method: "POST", path: "/mcp", headers: { ...MCP_HEADERS, ...auth(token) }, body, check: expectToolResult };
      };
    };
    const getHttp: Target = { method: "GET", path: "/v1/markets/read-me", headers: auth(reader), check: expectStatus(200) };
    const getMcpBody = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "get_market", arguments: { marketId: "read-me" } } });
    const getMcp: Target = { method: "POST", path: "/mcp", headers: { ...MCP_HEADERS, ...auth(reader) }, body: getMcpBody, check: expectToolResult };

    const phases: Array<{ label: string; op: "get" | "claim"; transport: "http" | "mcp" }> = [
      { label: "get_market   HTTP GET /v1/markets/{id}", op: "get", transport: "http" },
      { label: "get_market   MCP tools/call", op: "get", transport: "mcp" },
      { label: "direct claim HTTP POST .../direct-claims", op: "claim", transport: "http" },
      { label: "direct claim MCP tools/call submit_direct_claim", op: "claim", transport: "mcp" },
    ].filter((p) => (only === "all" || p.op === only) && (profileDir === undefined || p.transport === "mcp")) as Array<{ label: string; op: "get" | "claim"; transport: "http" | "mcp" }>;

    const cpu = cpus();
    console.log(
      `# MCP vs HTTP — ${new Date().toISOString()} — Node ${process.version}, ${cpu.length} × ${cpu[0]?.model ?? "?"}, load ${loadavg().map((l) => l.toFixed(2)).join(" ")}\n` +
        `# MCP_RESPONSE_MODE=${mode}, concurrency ${concurrency}, ${seconds} s per phase after ${warmup} s warm-up, ${rounds} round(s), ${participants} participants\n`,
    );
    const results = new Map<string, Sample[]>();
    for (let round = 1; round <= rounds; round++) {
      for (const phase of phases) {
        const next = phase.op === "get" ? () => (phase.transport === "http" ? getHttp : getMcp) : await claimTargets(phase.transport);
        const sample = await load(phase.label, base, next, { seconds, warmup, concurrency, cpuSeconds: child.cpuSeconds });
        results.set(phase.label, [...(results.get(phase.label) ?? []), sample]);
        console.log(
          `round ${round}  ${phase.label.padEnd(50)} ${sample.rps.toFixed(0).padStart(7)} req/s  p50 ${sample.p50.toFixed(2).padStart(7)} ms  p99 ${sample.p99.toFixed(2).padStart(7)} ms  service CPU ${sample.cpuMicros.toFixed(0).padStart(5)} µs/req` +
            (sample.failures > 0 ? `  FAILURES ${sample.failures} (${sample.firstFailure})` : ""),
        );
      }
    }
    console.log("\n| operation | req/s median (min–max) | p50 ms median | p99 ms median | service CPU µs/req median (min–max) | failures |\n|---|---:|---:|---:|---:|---:|");
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
    for (const [label, samples] of results) {
      const rps = samples.map((s) => s.rps);
      const cpu = samples.map((s) => s.cpuMicros);
      console.log(
        `| ${label} | ${median(rps).toFixed(0)} (${Math.min(...rps).toFixed(0)}–${Math.max(...rps).toFixed(0)}) | ${median(samples.map((s) => s.p50)).toFixed(2)} | ${median(samples.map((s) => s.p99)).toFixed(2)} | ` +
          `${median(cpu).toFixed(0)} (${Math.min(...cpu).toFixed(0)}–${Math.max(...cpu).toFixed(0)}) | ${samples.reduce((n, s) => n + s.failures, 0)} |`,
      );
    }
  } finally {
    await child.stop();
    rmSync(dataDir, { recursive: true, force: true });
    if (profileDir !== undefined) console.log(`\nCPU profile of the service written to ${profileDir}`);
  }
}

/** In process: the SDK's per-request work (handle) vs the tool alone (callTool) vs the API call. */
async function micro(): Promise<void> {
  const { Bench } = await import("tinybench");
  const { startService } = await import("../gateway/service.js");
  const dataDir = mkdtempSync(path.join(tmpdir(), "mcp-bench-micro-"));
  const service = await startService({
    env: { DATA_DIR: dataDir, HOST: "127.0.0.1", PORT: "0", LOG_LEVEL: "silent", SERVICE_HMAC_SECRETS: `operator=${randomBytes(32).toString("base64url")}`, MCP_RESPONSE_MODE: arg("mode", "json") },
  });
  try {
    const created = await service.api.execute("operator", "market.create_draft", "", {
      commandId: "c-1",
      marketId: "read-me",
      principalId: "operator",
      subject: { schema: "bench.v1", data: {} },
      mechanism: { presetId: "direct-claim.v1", config: { capacity: 1, pricing: { mode: "free" }, confirmation: "none" } },
    });
    if (!created.ok) throw new Error(created.message);
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "get_market", arguments: { marketId: "read-me" } } });
    const bench = new Bench({ time: Number(arg("seconds", "3")) * 1000, warmup: true });
    const only = arg("only", "all"); // handle | tool | api
    if (only === "all" || only === "handle") {
      bench.add("McpEndpoint.handle(get_market) → Response text", async () => {
        const request = new Request("http://mcp.local/mcp", { method: "POST", headers: MCP_HEADERS, body });
        const { response, done } = await service.mcp.handle(request, "operator");
        await response.text();
        done();
      });
    }
    if (only === "all" || only === "tool") {
      bench.add("McpEndpoint.callTool(get_market) (no SDK)", async () => {
        await service.mcp.callTool("get_market", { marketId: "read-me" }, "operator");
      });
    }
    if (only === "all" || only === "api") {
      bench.add("MarketApi.getMarket", async () => {
        await service.api.getMarket("read-me");
      });
    }
    await bench.run();
    console.table(bench.table());
  } finally {
    await service.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (flag("serve")) await serve();
else if (flag("micro")) await micro();
else await main();
