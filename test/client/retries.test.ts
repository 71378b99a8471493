/**
 * Safe retries: only after no answer, a 503 or a 429; always the same body bytes (so the same
 * commandId); Retry-After honoured; bounded in attempts and in time; off with `retry: false`.
 *
 * Across a real restart: the built service as a process, stopped; a claim sent then meets a refused
 * connection; the client's (injected) sleep starts the service again on the same port and data
 * directory; the retry is accepted with the same commandId, and the market's record holds the command
 * once. A 503 is the service's own: started on a data directory with shard workers that recover only
 * once the client's first wait opens their gate, it answers every route 503 with Retry-After until
 * then (its readiness gate). The service never answers 429; that case, and the bounds, use a tiny
 * server in front of the real service (support/front.ts) that refuses as a test says.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Ed25519Session, MarketClient, MarketServiceError, errorGuards, type Credentials } from "@market-service/client";
import { startService } from "../../gateway/service.js";
import { freePort } from "../../scripts/free-port.js";
import { gatedWorkers } from "../support/gated-workers.js";
import { Harness, type Principal } from "../http-api/support/harness.js";
import { eventually, OPERATOR, startServer, tempDataDir, type Spawned } from "../process/support.js";
import { closingFetch } from "./support/closing-fetch.js";
import { startFront, type Front, type Refusal } from "./support/front.js";

const DIRECT = { presetId: "direct-claim.v1", config: { capacity: 2, pricing: { mode: "free" }, confirmation: "none" } } as const;

/** The built service as a process; each test's last one is stopped after the file. */
const servers: Array<Spawned & { url: string }> = [];
const restartDirs: string[] = [];
afterAll(async () => {
  for (const server of servers) {
    if (server.child.exitCode === null && server.child.signalCode === null) {
      server.child.kill("SIGTERM");
      await server.exited;
    }
  }
  for (const dir of restartDirs) rmSync(path.dirname(dir), { recursive: true, force: true });
});

/**
 * The built service on a data directory of its own, with a creator, bob and an open market of two
 * places; its clients share a fetch whose idle connections the test closes before the stop
 * (support/closing-fetch.ts says why).
 */
async function serviceWithMarket(name: string, marketId: string) {
  const dataDir = tempDataDir(name);
  restartDirs.push(dataDir);
  const server = await startServer(dataDir);
  servers.push(server);
  const connections = closingFetch();
  const admin = new MarketClient({ baseUrl: server.url, fetch: connections.fetch, credentials: { kind: "hmac", ...OPERATOR } });
  const creator = await admin.provisionNewIdentity({ principalId: "creator" });
  const bob = await admin.provisionNewIdentity({ principalId: "bob" });
  const asCreator = admin.withCredentials(new Ed25519Session(creator));
  await asCreator.createMarket({ marketId, principalId: "creator", subject: { schema: "seat.v1", data: {} }, mechanism: DIRECT });
  await asCreator.publishMarket(marketId, { principalId: "creator", expectedVersion: 1 });
  /** Stops the service (after closing the clients' idle connections) and says how to start it again on the same port and directory. */
  const stop = async (signal: NodeJS.Signals): Promise<() => Promise<void>> => {
    connections.closeIdle();
    server.child.kill(signal);
    await server.exited;
    return async () => void servers.push(await startServer(dataDir, { PORT: new URL(server.url).port }));
  };
  return { url: server.url, fetch: connections.fetch, asCreator, bob, stop };
}

describe("retries across a real restart of the service", () => {
  it("retries a claim after connection refused, with the same commandId, and the record shows it once", async () => {
    const service = await serviceWithMarket("sdk-restart", "restart-m");
    const sleeps: number[] = [];
    let start: (() => Promise<void>) | undefined;
    let restarted = false;
    const bobClient = new MarketClient({
      baseUrl: service.url,
      fetch: service.fetch,
      credentials: new Ed25519Session(service.bob),
      retry: { maxAttempts: 10, maxElapsedMs: 60_000 },
      // The first wait is where the service comes back: on the same port and data directory.
      sleep: async (ms) => {
        sleeps.push(ms);
        if (!restarted && start !== undefined) {
          restarted = true;
          await start();
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, ms));
      },
    });
    // A token first, so the claim itself is what meets the stopped service.
    await bobClient.getMarket("restart-m");
    start = await service.stop("SIGTERM");

    const claimed = await bobClient.submitDirectClaim("restart-m", { principalId: "bob" });
    expect(restarted).toBe(true);
    expect(claimed.attempts).toBeGreaterThanOrEqual(2);
    expect(claimed.body.commitments[0]?.participantPrincipalId).toBe("bob");

    // Sent once more with the same commandId: the original result, not a second command.
    const again = await bobClient.submitDirectClaim("restart-m", { principalId: "bob", commandId: claimed.commandId });
    expect(again.body).toEqual(claimed.body);
    const record = await service.asCreator.getMarketRecord("restart-m");
    expect(record.commands.filter((command) => command.id === claimed.commandId)).toHaveLength(1);
    expect(record.commands.filter((command) => command.type === "direct_claim.submit")).toHaveLength(1);
  }, 120_000);
});

describe("the default retry budget rides out a restart", () => {
  it("a claim sent while the service is killed and started again (same port, same data directory) succeeds with the default options", async () => {
    const service = await serviceWithMarket("sdk-default-budget", "budget-m");
    // Nothing about retries is set: the defaults, the real clock and the real timer.
    const retries: number[] = [];
    const bobClient = new MarketClient({ baseUrl: service.url, fetch: service.fetch, credentials: new Ed25519Session(service.bob), onRetry: ({ delayMs }) => retries.push(delayMs) });
    await bobClient.getMarket("budget-m");
    const start = await service.stop("SIGKILL");

    // The claim goes out to a dead service; the service is started again meanwhile, as a supervisor would.
    const claiming = bobClient.submitDirectClaim("budget-m", { principalId: "bob" });
    await start();
    const claimed = await claiming;
    expect(claimed.attempts).toBeGreaterThanOrEqual(2);
    expect(retries.length).toBe(claimed.attempts - 1);
    expect(claimed.body.commitments[0]?.participantPrincipalId).toBe("bob");
    const record = await service.asCreator.getMarketRecord("budget-m");
    expect(record.commands.filter((command) => command.id === claimed.commandId)).toHaveLength(1);
  }, 120_000);

  it("by default a service that does not answer is tried for more than 18 s and never past 20 s; the error carries the command id", async () => {
    for (const random of [() => 0, () => 0.999]) {
      let nowMs = 0;
      const starts: number[] = [];
      const client = new MarketClient({
        baseUrl: "http://127.0.0.1:9",
        clock: { nowMs: () => nowMs },
        sleep: async (ms) => void (nowMs += ms),
        random,
        fetch: async () => {
          starts.push(nowMs);
          throw new TypeError("fetch failed", { cause: Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }) });
        },
      });
      const error = await client.submitDirectClaim("m", { principalId: "bob", commandId: "bob-lost" }).catch((thrown: unknown) => thrown);
      expect(error).toMatchObject({ name: "MarketServiceError", code: "unreachable", status: 0, causeCode: "ECONNREFUSED", lasting: false, commandId: "bob-lost" });
      const last = starts[starts.length - 1] ?? 0;
      expect(last).toBeGreaterThan(18_000);
      expect(last).toBeLessThanOrEqual(20_000);
    }
  });

  it("a connection that ends before the answer says how long after the request was started, and a late one another hint; a refused one says neither", async () => {
    let nowMs = 1_000;
    let tookMs = 10_512;
    let cause = "UND_ERR_SOCKET";
    const client = new MarketClient({
      baseUrl: "http://127.0.0.1:9",
      clock: { nowMs: () => nowMs },
      retry: { maxAttempts: 1 },
      fetch: async () => {
        nowMs += tookMs;
        throw new TypeError("fetch failed", { cause: Object.assign(new Error("other side closed"), { code: cause }) });
      },
    });
    const closed = await client.getMarket("m").catch((thrown: unknown) => thrown);
    expect(closed).toMatchObject({ code: "unreachable", causeCode: "UND_ERR_SOCKET" });
    expect((closed as MarketServiceError).message).toBe(
      "cannot reach http://127.0.0.1:9 (connection closed by the other side, UND_ERR_SOCKET, 10512 ms after the request was started): the service, or a proxy before it, ended the exchange before answering: retry; if it recurs, check their timeouts and restarts",
    );
    cause = "ECONNREFUSED";
    const refused = await client.getMarket("m").catch((thrown: unknown) => thrown);
    expect((refused as MarketServiceError).message).toBe("cannot reach http://127.0.0.1:9 (connection refused, ECONNREFUSED): is the service running, and on this port?");
    cause = "ECONNRESET";
    tookMs = 3;
    const reset = await client.getMarket("m").catch((thrown: unknown) => thrown);
    expect((reset as MarketServiceError).message).toBe(
      "cannot reach http://127.0.0.1:9 (connection reset, ECONNRESET, 3 ms after the request was started): does the URL's scheme (http or https) match the service?",
    );
  });

  it("does not retry a cause that waiting cannot fix (host not found)", async () => {
    const sleeps: number[] = [];
    let calls = 0;
    const client = new MarketClient({
      baseUrl: "http://no-such-host.invalid",
      sleep: async (ms) => void sleeps.push(ms),
      fetch: async () => {
        calls += 1;
        throw new TypeError("fetch failed", { cause: Object.assign(new Error("getaddrinfo ENOTFOUND"), { code: "ENOTFOUND" }) });
      },
    });
    const error = await client.getMarket("m").catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ name: "MarketServiceError", code: "unreachable", causeCode: "ENOTFOUND", lasting: true, commandId: undefined });
    expect(errorGuards.unreachable(error)).toBe(true);
    expect(calls).toBe(1);
    expect(sleeps).toEqual([]);
  });
});

describe("503 and 429 with Retry-After", () => {
  let h: Harness;
  let bob: Principal;
  let creator: Principal;
  const fronts: Front[] = [];
  beforeAll(async () => {
    h = await Harness.start();
    [creator, bob] = await h.principals("creator", "bob");
    const client = new MarketClient({ baseUrl: h.url, credentials: creator.auth });
    for (const id of ["m-503", "m-429", "m-bounded", "m-budget", "m-off", "m-409"]) {
      await client.createMarket({ marketId: id, principalId: "creator", subject: { schema: "seat.v1", data: {} }, mechanism: DIRECT });
      await client.publishMarket(id, { principalId: "creator", expectedVersion: 1 });
    }
  });
  afterAll(async () => {
    for (const front of fronts) await front.close();
    await h.close();
  });

  async function through(refuse: (n: number) => Refusal | undefined, options: { retry?: false | { maxAttempts?: number; maxElapsedMs?: number }; credentials?: Credentials; nowMs?: () => number } = {}) {
    const front = await startFront(h.url, refuse);
    fronts.push(front);
    const sleeps: number[] = [];
    const client = new MarketClient({
      baseUrl: front.url,
      credentials: options.credentials ?? bob.auth,
      ...(options.retry === undefined ? {} : { retry: options.retry }),
      ...(options.nowMs === undefined ? {} : { clock: { nowMs: options.nowMs } }),
      sleep: async (ms) => {
        sleeps.push(ms);
      },
    });
    return { front, sleeps, client };
  }

  it("waits the 503's Retry-After while the real service recovers (its readiness gate), then the claim goes through once", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "sdk-503-"));
    const dataDir = path.join(dir, "data");
    // On the real clock: the tokens issued now are still good after the restart (they are durable).
    const first = await Harness.start({ dataDir, startMs: Date.now() });
    let tokens: { creator: Credentials; bob: Credentials };
    try {
      const [creator503, bob503] = await first.principals("creator", "bob");
      tokens = { creator: creator503.auth, bob: bob503.auth };
      const client = new MarketClient({ baseUrl: first.url, credentials: creator503.auth });
      await client.createMarket({ marketId: "m-503", principalId: "creator", subject: { schema: "seat.v1", data: {} }, mechanism: DIRECT });
      await client.publishMarket("m-503", { principalId: "creator", expectedVersion: 1 });
    } finally {
      await first.close();
    }
    // Started again with shards that recover only once the gate opens: until then every route is a 503 with Retry-After.
    const gate = gatedWorkers(dir);
    const port = await freePort();
    const starting = startService({ env: { DATA_DIR: dataDir, HOST: "127.0.0.1", PORT: String(port), SHARDS: "2", LOG_LEVEL: "silent" }, workerSource: gate.source });
    const url = `http://127.0.0.1:${port}`;
    await eventually(async () => (await fetch(`${url}/livez`).then((r) => r.status).catch(() => 0)) === 200, 60_000, "/livez");
    // health's spec error: the 503 of a service not ready yet, with the service's request id.
    const health = await new MarketClient({ baseUrl: url, retry: false }).health().catch((thrown: unknown) => thrown);
    expect(errorGuards.service_unavailable(health)).toBe(true);
    expect(health).toMatchObject({ status: 503, serviceMessage: "the service is starting: its logs are being recovered" });
    expect((health as MarketServiceError).requestId).toBeDefined();
    const sleeps: number[] = [];
    const seen: string[] = [];
    const observing: typeof fetch = (input, init) => {
      if (typeof init?.body === "string") seen.push(init.body);
      return fetch(input, init);
    };
    const bobClient = new MarketClient({
      baseUrl: url,
      fetch: observing,
      credentials: tokens.bob,
      retry: { maxAttempts: 20, maxElapsedMs: 60_000 },
      sleep: async (ms) => {
        sleeps.push(ms);
        gate.open();
        await new Promise((resolve) => setTimeout(resolve, ms));
      },
    });
    const service = await (async () => {
      const claimed = await bobClient.submitDirectClaim("m-503", { principalId: "bob" });
      const running = await starting;
      try {
        // The service's Retry-After is 1 second; every wait was that long.
        expect(sleeps.length).toBeGreaterThanOrEqual(1);
        expect(new Set(sleeps)).toEqual(new Set([1_000]));
        const claims = seen;
        expect(claims.length).toBeGreaterThanOrEqual(2);
        expect(new Set(claims).size).toBe(1);
        expect(JSON.parse(claims[0] ?? "{}").commandId).toBe(claimed.commandId);
        const record = await bobClient.withCredentials(tokens.creator).getMarketRecord("m-503");
        expect(record.commands.filter((command) => command.id === claimed.commandId)).toHaveLength(1);
      } catch (error) {
        await running.close();
        throw error;
      }
      return running;
    })();
    await service.close();
    rmSync(dir, { recursive: true, force: true });
  }, 120_000);

  it("waits a 429's Retry-After (from a server in front: the service sends none) and sends the same bytes again", async () => {
    const { front, sleeps, client } = await through((n) => (n === 1 ? { status: 429, retryAfter: "7" } : undefined));
    const claimed = await client.submitDirectClaim("m-503", { principalId: "bob" });
    expect(sleeps).toEqual([7_000]);
    expect(claimed.attempts).toBe(2);
    expect(front.seen).toHaveLength(2);
    expect(front.seen[1]?.body).toBe(front.seen[0]?.body);
    expect(JSON.parse(front.seen[0]?.body ?? "{}").commandId).toBe(claimed.commandId);
    const record = await new MarketClient({ baseUrl: h.url, credentials: creator.auth }).getMarketRecord("m-503");
    expect(record.commands.filter((command) => command.id === claimed.commandId)).toHaveLength(1);
  });

  it("reads a Retry-After given as an HTTP date", async () => {
    const nowMs = Date.parse("2026-05-01T10:00:00.000Z");
    const { front, sleeps, client } = await through((n) => (n === 1 ? { status: 429, retryAfter: new Date(nowMs + 3_000).toUTCString() } : undefined), { nowMs: () => nowMs });
    const claimed = await client.submitDirectClaim("m-429", { principalId: "bob", commandId: "bob-429" });
    expect(sleeps).toEqual([3_000]);
    expect(front.seen.map((seen) => JSON.parse(seen.body).commandId)).toEqual(["bob-429", "bob-429"]);
    expect(claimed.commandId).toBe("bob-429");
  });

  it("backs off without Retry-After, gives up after maxAttempts with the last refusal", async () => {
    const { front, sleeps, client } = await through(() => ({ status: 503 }), { retry: { maxAttempts: 3 } });
    const error = await client.submitDirectClaim("m-bounded", { principalId: "bob" }).catch((thrown: unknown) => thrown);
    expect(errorGuards.service_unavailable(error)).toBe(true);
    expect((error as MarketServiceError).status).toBe(503);
    // The id the client made is on the error: the same command can be sent again safely.
    expect((error as MarketServiceError).commandId).toBe(JSON.parse(front.seen[0]?.body ?? "{}").commandId);
    expect(front.seen).toHaveLength(3);
    expect(sleeps).toHaveLength(2);
    // Equal jitter of 200 ms doubled: the first wait in [100, 200], the second in [200, 400].
    expect(sleeps[0]).toBeGreaterThanOrEqual(100);
    expect(sleeps[0]).toBeLessThanOrEqual(200);
    expect(sleeps[1]).toBeGreaterThanOrEqual(200);
    expect(sleeps[1]).toBeLessThanOrEqual(400);
  });

  it("does not wait past maxElapsedMs: a Retry-After beyond it ends the retries at once", async () => {
    const { front, sleeps, client } = await through(() => ({ status: 503, retryAfter: "120" }), { retry: { maxElapsedMs: 30_000 } });
    const error = await client.submitDirectClaim("m-budget", { principalId: "bob" }).catch((thrown: unknown) => thrown);
    expect(errorGuards.service_unavailable(error)).toBe(true);
    expect(front.seen).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it("sends once with retry: false, and never retries a refusal on content (409)", async () => {
    const off = await through((n) => (n === 1 ? { status: 503, retryAfter: "1" } : undefined), { retry: false });
    await expect(off.client.submitDirectClaim("m-off", { principalId: "bob" })).rejects.toBeInstanceOf(MarketServiceError);
    expect(off.front.seen).toHaveLength(1);
    expect(off.sleeps).toEqual([]);

    const conflict = await through(() => undefined);
    await conflict.client.submitDirectClaim("m-409", { principalId: "bob", commandId: "bob-409" });
    const error = await conflict.client.submitDirectClaim("m-409", { principalId: "bob", commandId: "bob-409", expectedVersion: 99 }).catch((thrown: unknown) => thrown);
    expect(errorGuards.idempotency_conflict(error)).toBe(true);
    expect((error as MarketServiceError).commandId).toBe("bob-409");
    expect(conflict.front.seen).toHaveLength(2);
    expect(conflict.sleeps).toEqual([]);
  });

  it("retries no answer only where a repeat cannot do anything twice: not a token request", async () => {
    const closed = await startFront(h.url, () => undefined);
    const url = closed.url;
    await closed.close();
    const sleeps: number[] = [];
    const client = new MarketClient({ baseUrl: url, retry: { maxAttempts: 3 }, sleep: async (ms) => void sleeps.push(ms) });
    await expect(client.issueToken({ challengeId: "c", nonce: "n", signature: "s" })).rejects.toMatchObject({ name: "MarketServiceError", code: "unreachable" });
    expect(sleeps).toEqual([]);
    await expect(client.getMarket("m-503", { credentials: bob.auth })).rejects.toMatchObject({ name: "MarketServiceError", code: "unreachable" });
    expect(sleeps).toHaveLength(2);
  });
});
