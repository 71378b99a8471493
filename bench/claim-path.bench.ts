/**
 * What the gateway thread does for one claim, outside the socket: the route handler's steps, then
 * idempotency and the shard channel's packing, timed and weighed step by step in this one thread.
 *   node --expose-gc --max-semi-space-size=256 --import tsx bench/claim-path.bench.ts [--claims 20000] [--rounds 5]
 *
 * Each step is measured cumulatively over `--claims` distinct claims (each its own participant,
 * token and commandId, as in the storm): CPU time of this thread per claim (process.cpuUsage, so a
 * busy machine slows it less than wall time would) and heap bytes allocated per claim (the young
 * generation is made large enough that no garbage collection runs inside a measured loop, so the
 * growth of the heap is what the step allocated). Median of `--rounds`. The socket's side (uWS,
 * syscalls, the Exchange) and the shard's are not here: bench:guard and profiles measure those.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { AuthService, loadAuthConfig } from "../gateway/auth/index.js";
import { hashTokenText } from "../gateway/auth/token-hash.js";
import { systemClock } from "../engine/clock.js";
import { IdempotencyIndex } from "../engine/idempotency/index.js";
import { IdentityStore } from "../engine/identity/index.js";
import { buildMarketCommand, fingerprintOfCommand } from "../gateway/api/market-api.js";
import { parseStrictJson } from "../gateway/http/strict-json/index.js";
import { validateDirectClaimBody } from "../engine/rules/validation/generated/bodies.js";
import { SCOPE_FOR_OPERATION } from "../gateway/auth/authority.js";
import { commandRequest, commandResponse, errorReply } from "../engine/shard-protocol/shard-protocol.js";
import { envelope } from "../engine/runtime/worker-messages.js";
import { packRequests, packResponses, unpackRequests, unpackResponses } from "../engine/runtime/wire.js";
import { generateKeyPair } from "@market-service/client";
import { numberArg } from "./args.js";
import { median } from "./storm/paired-rounds.js";

const CLAIMS = numberArg("claims", 20_000);
const ROUNDS = numberArg("rounds", 5);
const BATCH = 64;
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error("run with --expose-gc");

const root = mkdtempSync(path.join(tmpdir(), "claim-path-"));
try {
  const store = await IdentityStore.open({ dir: path.join(root, "identity"), clock: systemClock, idempotency: new IdempotencyIndex(), isOperator: (id) => id === "op" });
  const auth = new AuthService(loadAuthConfig({}, root), store);
  const now = Date.now();
  const participants = 2_000;
  const tokens: string[] = [];
  for (let p = 0; p < participants; p++) {
    const id = `participant-${String(p).padStart(6, "0")}`;
    const provisioned = await store.provisionIdentity("op", { commandId: `p-${p}`, principalId: id, actorId: id, keyId: `k-${p}`, publicKey: generateKeyPair().publicKey });
    if (!provisioned.ok) throw new Error(`provision ${id}: ${JSON.stringify(provisioned)}`);
    const token = `t${String(p).padStart(42, "0")}`;
    const recorded = await store.recordToken({ hash: hashTokenText(token), actorId: id, keyId: `k-${p}`, audience: auth.config.audience, issuedAtMs: now, expiresAtMs: now + 3_600_000 });
    if (recorded !== "recorded") throw new Error(`token of ${id}: ${recorded}`);
    tokens.push(token);
  }
  const bodies = Array.from({ length: CLAIMS }, (_, i) => Buffer.from(`{"commandId":"r1-1-${i}","principalId":"participant-${String(i % participants).padStart(6, "0")}"}`));
  const authorizations = Array.from({ length: CLAIMS }, (_, i) => `Bearer ${tokens[i % participants]}`);
  const refused = errorReply("capacity_exhausted", "market hot-1 has no capacity left");

  let index = new IdempotencyIndex();
  /** One claim through the steps up to `upTo`; returns something so no step is optimized away. */
  const steps = ["parse", "authenticate", "validate", "authority", "build+fingerprint", "idempotency", "channel packing"] as const;
  type Step = (typeof steps)[number];
  const run = (upTo: Step, from: number, to: number): number => {
    const last = steps.indexOf(upTo);
    let sink = 0;
    let outbox: ReturnType<typeof envelope<ReturnType<typeof commandRequest>>>[] = [];
    for (let i = from; i < to; i++) {
      const parsed = parseStrictJson(bodies[i] as Buffer);
      if (!parsed.ok) throw new Error(parsed.message);
      if (last < 1) continue;
      const authorization = authorizations[i] as string;
      const actorId = auth.authenticateBearer(authorization.slice(7), now);
      if (actorId === undefined) throw new Error("token refused");
      if (last < 2) continue;
      const checked = validateDirectClaimBody(parsed.value);
      if (!checked.success) throw new Error("invalid");
      if (last < 3) continue;
      const body = checked.data;
      const rejection = auth.checkAuthority({ actorId, principalId: body.principalId, scope: SCOPE_FOR_OPERATION["direct_claim.submit"] }, now);
      if (last < 4) continue;
      const command = buildMarketCommand("direct_claim.submit", actorId, "hot-1", body, rejection);
      const fingerprint = fingerprintOfCommand(command);
      sink += fingerprint.length;
      if (last < 5) continue;
      const claim = index.claim(actorId, command.commandId, fingerprint);
      if (claim.kind !== "fresh") throw new Error(`claim ${claim.kind}`);
      claim.complete({ owner: 0, position: i });
      if (last < 6) continue;
      outbox.push(envelope(i, commandRequest(command, fingerprint)));
      if (outbox.length === BATCH) {
        const requests = unpackRequests(packRequests(outbox));
        const replies = unpackResponses(packResponses(requests.map((r) => envelope(r.id, commandResponse("rejected", refused, r.id)))));
        sink += replies.length;
        outbox = [];
      }
    }
    return sink;
  };

  // The whole route handler as the HTTP server calls it (authentication, body, validation,
  // authority, command, fingerprint, idempotency through submitOnce, the reply), with a runtime
  // whose shard answers at once: the handler's own cost, promises included, without the socket.
  const { marketRoutes } = await import("../gateway/routes/market-routes.js");
  const { MarketApi } = await import("../gateway/api/market-api.js");
  const { RequestHeaders } = await import("../gateway/http/headers.js");
  const { submitOnce } = await import("../engine/runtime/submit-once.js");
  const runtime = {
    submit: (command: Parameters<typeof submitOnce>[2], fingerprint: string) =>
      submitOnce(index, { execute: async () => ({ owner: 0, response: commandResponse("rejected", refused, 1) }), replyAt: async () => refused }, command, fingerprint),
  } as unknown as ConstructorParameters<typeof MarketApi>[0]["runtime"];
  const api = new MarketApi({ runtime, auth, clock: systemClock });
  const claimRoute = marketRoutes({ auth, clock: systemClock, api }).find((r) => r.pattern === "/v1/markets/:marketId/direct-claims");
  if (claimRoute === undefined) throw new Error("no claim route");
  const contexts = bodies.map((bodyBytes, i) => {
    const headers = new RequestHeaders();
    headers.add("host", "127.0.0.1:8080");
    headers.add("authorization", authorizations[i] as string);
    headers.add("content-type", "application/json");
    headers.add("content-length", String(bodyBytes.length));
    return { method: "POST" as const, url: "/v1/markets/hot-1/direct-claims", path: "/v1/markets/hot-1/direct-claims", query: "", params: { marketId: "hot-1" }, headers, bodyBytes, requestId: `req-${i}`, remoteAddress: "127.0.0.1", route: claimRoute.pattern };
  });
  const handlerRun = async (): Promise<number> => {
    let sink = 0;
    for (let i = 0; i < CLAIMS; i += BATCH) {
      const replies = await Promise.all(contexts.slice(i, i + BATCH).map((context) => claimRoute.handler(context)));
      sink += replies.length;
    }
    return sink;
  };

  /** `work` over the claims, ROUNDS times after a warm-up round (which compiles the path): median µs of CPU and heap bytes per claim. */
  const measure = async (label: string, work: () => unknown): Promise<void> => {
    const us: number[] = [];
    const bytes: number[] = [];
    for (let round = 0; round < ROUNDS + 1; round++) {
      index = new IdempotencyIndex();
      gc();
      gc();
      const heapBefore = process.memoryUsage().heapUsed;
      const cpuBefore = process.cpuUsage();
      await work();
      const cpu = process.cpuUsage(cpuBefore);
      const heapAfter = process.memoryUsage().heapUsed;
      if (round === 0) continue;
      us.push((cpu.user + cpu.system) / CLAIMS);
      bytes.push((heapAfter - heapBefore) / CLAIMS);
    }
    console.log(`${label.padEnd(24)} ${median(us).toFixed(2).padStart(9)} ${Math.round(median(bytes)).toString().padStart(12)}`);
  };

  console.log(`claim path on one thread: ${CLAIMS} claims per round, median of ${ROUNDS} rounds (cumulative steps)`);
  console.log("step                      µs/claim   bytes/claim");
  for (const step of steps) await measure(`+ ${step}`, () => run(step, 0, CLAIMS));
  await measure("route handler (whole)", handlerRun);
  await store.close();
} finally {
  rmSync(root, { recursive: true, force: true });
}
