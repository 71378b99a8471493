/**
 * The soak's mixed load, driven from the bench process against the real service:
 *
 * - recorded commands (markets created and published, claims, bids, confirmations, declines, claims
 *   on markets that do not exist) at a fixed pace: what they leave behind is state the service must
 *   keep (markets, records, idempotency entries), so its rate is bounded to make the growth it
 *   causes small and known;
 * - new actors at a fixed pace (provisioned through the HMAC admin endpoint with the bootstrap
 *   operator's credential, then the Ed25519 challenge → token flow), and token renewals as tokens
 *   expire;
 * - as fast as the service answers: reads (market, record, my-outcome, identical retries, MCP tools)
 *   and refused requests of every kind the service must turn away without keeping anything (bad and
 *   oversized bodies, unknown fields and routes and methods, missing, garbage, expired and distinct
 *   bogus credentials, bad HMAC signatures, idempotency conflicts, bogus challenges).
 *
 * Every request's status is checked against what the spec says it must be; anything else is
 * counted as unexpected (with a few examples kept for the report).
 */
import { randomBytes } from "node:crypto";
import { type Credentials, generateKeyPair, MarketClient, type ServiceResponse, signSigningPayload } from "@market-service/client";
import { rawAbandon, rawExchange } from "./raw-http.js";

/** What a request is, for the mix counts: only `recorded` and `identity` may leave state behind. */
export type RequestKind = "recorded" | "identity" | "read" | "refused";

export interface ActionCount {
  kind: RequestKind;
  requests: number;
  statuses: Record<string, number>;
  unexpected: number;
}

export interface LoadOptions {
  url: string;
  operator: { actorId: string; secret: string };
  /** A static MCP token the service was started with (MCP_STATIC_TOKENS). */
  staticMcpToken: string;
  /** Recorded market commands per second (all writers together). */
  recordedPerSecond: number;
  /** New actors per second. */
  actorsPerSecond: number;
  /** Concurrent tasks sending reads and refused requests as fast as they are answered. */
  readers: number;
  /** Concurrent tasks sending the paced recorded commands. */
  writers: number;
  /** Only the newest this many actors act; older ones retire (their tokens expire unused). */
  activeActors: number;
  /** Share of new markets whose subject carries `largeSubjectBytes` of data (0 to 1). */
  largeSubjectShare: number;
  largeSubjectBytes: number;
  seed: number;
}

interface Actor {
  id: string;
  keyId: string;
  privateKey: string;
  token: string;
  tokenExpiresAtMs: number;
  renewing: Promise<void> | undefined;
  commands: number;
}

interface DirectMarket {
  id: string;
  creator: Actor;
  confirmation: "none" | "participant";
}

interface Auction {
  id: string;
  creator: Actor;
  closesAtMs: number;
  bidders: Actor[];
  winnerLooked: boolean;
}

interface PendingCommitment {
  id: string;
  principal: Actor;
  expiresAtMs: number;
}

/** A command already sent: for identical retries (replays) and for conflicting reuse of its id. */
interface SentCommand {
  actor: Actor;
  path: string;
  body: Record<string, unknown>;
  status: number;
}

const RECENT_MARKETS = 300;
const RECENT_AUCTIONS = 100;
const RECENT_COMMANDS = 500;
const EXPIRED_TOKENS_KEPT = 200;
const UNEXPECTED_EXAMPLES = 20;
/** A token is renewed this long before it expires. */
const RENEW_BEFORE_MS = 10_000;
const OVERSIZED_BYTES = 1024 * 1024 + 1;
/**
 * A declared Content-Length the service answers at once, without reading the body: above its bound
 * on what it reads and drops after a refusal (`maxDiscardBytes`; docs/http.md, "Request
 * lifecycle", step 4). A smaller oversized body is read to its end before the 400, which the
 * chunked request below exercises.
 */
const OVERSIZED_UNREAD_BYTES = 64 * 1024 * 1024 + 1;
const MCP_HEADERS = { accept: "application/json, text/event-stream" };

/** mulberry32: the mix's choices are reproducible from the seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function pushBounded<T>(list: T[], item: T, max: number): void {
  list.push(item);
  if (list.length > max) list.splice(0, list.length - max);
}

/** Hands out recorded-command slots at a fixed rate, shared by every writer. */
class Pacer {
  private next = performance.now();
  constructor(private readonly perSecond: number) {}

  async take(slots: number): Promise<void> {
    const now = performance.now();
    const at = Math.max(this.next, now);
    this.next = at + (slots * 1000) / this.perSecond;
    if (at > now) await sleep(at - now);
  }
}

interface Action {
  name: string;
  kind: RequestKind;
  weight: number;
  run: () => Promise<void>;
}

export class SoakLoad {
  readonly counts = new Map<string, ActionCount>();
  readonly unexpectedExamples: string[] = [];
  private readonly client: MarketClient;
  private readonly host: string;
  private readonly port: number;
  private readonly random: () => number;
  private readonly tag = randomBytes(3).toString("hex");
  private readonly actors: Actor[] = [];
  private readonly retired: Actor[] = [];
  private readonly expiredTokens: Array<{ token: string; expiresAtMs: number }> = [];
  private readonly directMarkets: DirectMarket[] = [];
  private readonly auctions: Auction[] = [];
  private readonly pending: PendingCommitment[] = [];
  private readonly sent: SentCommand[] = [];
  private readonly pacer: Pacer;
  private serial = 0;
  private running = false;
  private loops: Array<Promise<void>> = [];
  private failure: unknown = undefined;

  constructor(private readonly options: LoadOptions) {
    this.client = new MarketClient({ baseUrl: options.url });
    const parsed = new URL(options.url);
    this.host = parsed.hostname;
    this.port = Number(parsed.port);
    this.random = prng(options.seed);
    this.pacer = new Pacer(options.recordedPerSecond);
  }

  /** Provision the first actors and markets, then start every loop. */
  async start(): Promise<void> {
    for (let i = 0; i < Math.min(8, this.options.activeActors); i += 1) await this.provisionActor();
    for (let i = 0; i < 4; i += 1) await this.createDirectMarket();
    await this.createAuction();
    this.running = true;
    const guard = (loop: () => Promise<void>) =>
      loop().catch((error: unknown) => {
        this.failure ??= error;
        this.running = false;
      });
    // A rate of 0 turns that part of the load off (to find which part a growth comes from).
    this.loops = [
      ...(this.options.actorsPerSecond > 0 ? [guard(() => this.actorLoop())] : []),
      ...Array.from({ length: this.options.recordedPerSecond > 0 ? this.options.writers : 0 }, () => guard(() => this.writerLoop())),
      ...Array.from({ length: this.options.readers }, () => guard(() => this.readerLoop())),
    ];
  }

  /** Stop every loop after its request in flight; rethrows what stopped a loop early, if anything. */
  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
    if (this.failure !== undefined) throw this.failure;
  }

  get stoppedEarly(): unknown {
    return this.failure;
  }

  get actorCount(): number {
    return this.actors.length + this.retired.length;
  }

  // ---- loops ----

  private async actorLoop(): Promise<void> {
    const everyMs = 1000 / this.options.actorsPerSecond;
    let next = performance.now() + everyMs;
    while (this.running) {
      await sleep(Math.max(0, next - performance.now()));
      next += everyMs;
      if (this.running) await this.provisionActor();
    }
  }

  private async writerLoop(): Promise<void> {
    const actions: Array<{ weight: number; slots: number; run: () => Promise<void> }> = [
      { weight: 2, slots: 2, run: () => this.createDirectMarket() },
      { weight: 1, slots: 2, run: () => this.createAuction() },
      { weight: 8, slots: 1, run: () => this.claim() },
      { weight: 4, slots: 1, run: () => this.bid() },
      { weight: 3, slots: 1, run: () => this.settleCommitment() },
      { weight: 1, slots: 1, run: () => this.claimMissingMarket() },
    ];
    while (this.running) {
      const action = this.pick(actions);
      await this.pacer.take(action.slots);
      if (!this.running) return;
      await action.run();
      await this.lookForWinners();
    }
  }

  private async readerLoop(): Promise<void> {
    const actions = this.readerActions();
    while (this.running) await this.pick(actions).run();
  }

  private pick<T extends { weight: number }>(items: readonly T[]): T {
    const total = items.reduce((sum, item) => sum + item.weight, 0);
    let at = this.random() * total;
    for (const item of items) {
      at -= item.weight;
      if (at < 0) return item;
    }
    return items[items.length - 1] as T;
  }

  private any<T>(items: readonly T[]): T | undefined {
    return items.length === 0 ? undefined : items[Math.floor(this.random() * items.length)];
  }

  private id(prefix: string): string {
    this.serial += 1;
    return `${prefix}-${this.tag}-${this.serial}`;
  }

  // ---- counting ----

  private count(name: string, kind: RequestKind, status: number | "error", expected: readonly number[], detail = ""): void {
    let entry = this.counts.get(name);
    if (entry === undefined) {
      entry = { kind, requests: 0, statuses: {}, unexpected: 0 };
      this.counts.set(name, entry);
    }
    entry.requests += 1;
    entry.statuses[String(status)] = (entry.statuses[String(status)] ?? 0) + 1;
    if (status === "error" || !expected.includes(status)) {
      entry.unexpected += 1;
      if (this.unexpectedExamples.length < UNEXPECTED_EXAMPLES) this.unexpectedExamples.push(`${name}: ${status} ${detail.slice(0, 300)}`);
    }
  }

  /** A request through the client, counted; undefined when it failed at the transport. */
  private async send(
    name: string,
    kind: RequestKind,
    expected: readonly number[],
    method: "GET" | "POST",
    path: string,
    body?: unknown,
    credentials?: Credentials,
    headers?: Record<string, string>,
  ): Promise<ServiceResponse | undefined> {
    try {
      const response = await this.client.request(method, path, { body, credentials, headers });
      this.count(name, kind, response.status, expected, response.text);
      return response;
    } catch (error) {
      this.count(name, kind, "error", expected, error instanceof Error ? error.message : String(error));
      return undefined;
    }
  }

  /** A request the client gives up on before the reply: nothing to check but that the service goes on. */
  private async abandon(name: string, head: string, body?: Buffer): Promise<void> {
    await rawAbandon(this.host, this.port, head, body);
    this.count(name, "refused", 0, [0]);
  }

  private async sendRaw(name: string, expected: readonly number[], head: string, body?: Buffer): Promise<void> {
    try {
      const reply = await rawExchange(this.host, this.port, head, body);
      this.count(name, "refused", reply.status, expected, reply.text);
    } catch (error) {
      this.count(name, "refused", "error", expected, error instanceof Error ? error.message : String(error));
    }
  }

  // ---- actors and tokens ----

  private operatorCredentials(): Credentials {
    return { kind: "hmac", actorId: this.options.operator.actorId, secret: this.options.operator.secret };
  }

  private async provisionActor(): Promise<void> {
    const id = this.id("actor");
    const keys = generateKeyPair();
    const keyId = `${id}-key`;
    const provisioned = await this.send(
      "provision actor",
      "identity",
      [201],
      "POST",
      "/v1/admin/identities",
      { commandId: `provision-${id}`, principalId: id, actorId: id, keyId, publicKey: keys.publicKey },
      this.operatorCredentials(),
    );
    if (provisioned?.status !== 201) return;
    const actor: Actor = { id, keyId, privateKey: keys.privateKey, token: "", tokenExpiresAtMs: 0, renewing: undefined, commands: 0 };
    await this.renewToken(actor);
    if (actor.token === "") return;
    this.actors.push(actor);
    if (this.actors.length > this.options.activeActors) this.retired.push(this.actors.shift() as Actor);
    if (this.retired.length > 1000) this.retired.splice(0, this.retired.length - 1000);
  }

  /** Challenge → signature → token (spec §5.1); the old token is kept to be sent once it expired. */
  private async renewToken(actor: Actor): Promise<void> {
    const challenge = await this.send("challenge", "identity", [201], "POST", "/v1/auth/challenges", { actorId: actor.id, keyId: actor.keyId });
    if (challenge?.status !== 201) return;
    const signature = signSigningPayload(challenge.body.signingPayload, actor.privateKey);
    const grant = await this.send("token", "identity", [201], "POST", "/v1/auth/tokens", { challengeId: challenge.body.id, nonce: challenge.body.nonce, signature });
    if (grant?.status !== 201) return;
    if (actor.token !== "") pushBounded(this.expiredTokens, { token: actor.token, expiresAtMs: actor.tokenExpiresAtMs }, EXPIRED_TOKENS_KEPT);
    actor.token = grant.body.accessToken as string;
    actor.tokenExpiresAtMs = Date.parse(grant.body.expiresAt as string);
  }

  /** A bearer credential that is valid now (renewed first when it is about to expire). */
  private async bearer(actor: Actor): Promise<{ kind: "bearer"; token: string }> {
    if (actor.tokenExpiresAtMs - Date.now() < RENEW_BEFORE_MS) {
      actor.renewing ??= this.renewToken(actor).finally(() => {
        actor.renewing = undefined;
      });
      await actor.renewing;
    }
    return { kind: "bearer", token: actor.token };
  }

  private activeActor(): Actor {
    return this.any(this.actors) as Actor;
  }

  private commandId(actor: Actor): string {
    actor.commands += 1;
    return `c${actor.commands}-${this.tag}`;
  }

  // ---- recorded commands (paced) ----

  /**
   * A market's subject: small, or (a `largeSubjectShare` of markets) carrying `largeSubjectBytes`
   * of client data. The service repeats a market's subject in its replies and records (the market,
   * every commitment's terms), so these are what make replies and records large.
   */
  private subject(schema: string): { schema: string; data: Record<string, unknown> } {
    const data: Record<string, unknown> = { serial: this.serial, note: "a seat at the soak table" };
    if (this.random() < this.options.largeSubjectShare) data["attachment"] = randomBytes(Math.ceil((this.options.largeSubjectBytes * 3) / 4)).toString("base64url");
    return { schema, data };
  }

  private async createDirectMarket(): Promise<void> {
    const creator = this.activeActor();
    const auth = await this.bearer(creator);
    const marketId = this.id("direct");
    const confirmation = this.random() < 0.5 ? "none" : "participant";
    const pricing = this.random() < 0.5 ? { mode: "free" } : { mode: "posted", amountMinor: 1 + Math.floor(this.random() * 5000), currency: "EUR" };
    const config =
      confirmation === "none"
        ? { capacity: 1 + Math.floor(this.random() * 8), pricing, confirmation }
        : { capacity: 1 + Math.floor(this.random() * 8), pricing, confirmation, holdDurationSeconds: 3 + Math.floor(this.random() * 20) };
    const created = await this.send("create direct-claim market", "recorded", [201], "POST", "/v1/markets", {
      commandId: this.commandId(creator),
      marketId,
      principalId: creator.id,
      subject: this.subject("soak-item.v1"),
      mechanism: { presetId: "direct-claim.v1", config },
    }, auth);
    if (created?.status !== 201) return;
    const published = await this.send("publish market", "recorded", [200], "POST", `/v1/markets/${marketId}/publish`, { commandId: this.commandId(creator), principalId: creator.id, expectedVersion: 1 }, auth);
    if (published?.status === 200) pushBounded(this.directMarkets, { id: marketId, creator, confirmation }, RECENT_MARKETS);
  }

  private async createAuction(): Promise<void> {
    const creator = this.activeActor();
    const auth = await this.bearer(creator);
    const marketId = this.id("auction");
    const closesAtMs = Date.now() + 8_000 + Math.floor(this.random() * 15_000);
    const config: Record<string, unknown> = { currency: "EUR", closesAt: new Date(closesAtMs).toISOString(), holdDurationSeconds: 3 + Math.floor(this.random() * 20) };
    if (this.random() < 0.5) config["reserveAmountMinor"] = 1 + Math.floor(this.random() * 300);
    const created = await this.send("create auction", "recorded", [201], "POST", "/v1/markets", {
      commandId: this.commandId(creator),
      marketId,
      principalId: creator.id,
      subject: this.subject("soak-lot.v1"),
      mechanism: { presetId: "sealed-forward-auction.v1", config },
    }, auth);
    if (created?.status !== 201) return;
    const published = await this.send("publish market", "recorded", [200], "POST", `/v1/markets/${marketId}/publish`, { commandId: this.commandId(creator), principalId: creator.id, expectedVersion: 1 }, auth);
    if (published?.status === 200) pushBounded(this.auctions, { id: marketId, creator, closesAtMs, bidders: [], winnerLooked: false }, RECENT_AUCTIONS);
  }

  /** A claim over HTTP (or, one in four, the MCP tool): accepted, or refused for exhausted capacity. */
  private async claim(): Promise<void> {
    const market = this.any(this.directMarkets.slice(-50));
    if (market === undefined) return;
    // The creator may not claim in its own market (403 principal_not_authorized).
    const actor = this.any(this.actors.filter((a) => a !== market.creator));
    if (actor === undefined) return;
    const auth = await this.bearer(actor);
    const body = { commandId: this.commandId(actor), principalId: actor.id };
    let result: Record<string, unknown> | undefined;
    if (this.random() < 0.25) {
      const reply = await this.mcpCall("claim (MCP)", "recorded", auth, "submit_direct_claim", { marketId: market.id, ...body }, "any");
      result = reply?.structuredContent as Record<string, unknown> | undefined;
    } else {
      const path = `/v1/markets/${market.id}/direct-claims`;
      const response = await this.send("claim", "recorded", [200, 409], "POST", path, body, auth);
      if (response === undefined) return;
      pushBounded(this.sent, { actor, path, body, status: response.status }, RECENT_COMMANDS);
      if (response.status === 200) result = response.body as Record<string, unknown>;
    }
    const commitment = (result?.["commitments"] as Array<{ id: string; state: string; expiresAt?: string }> | undefined)?.[0];
    if (commitment !== undefined && commitment.state === "awaiting_confirmations" && commitment.expiresAt !== undefined) {
      this.pending.push({ id: commitment.id, principal: actor, expiresAtMs: Date.parse(commitment.expiresAt) });
    }
  }

  private async bid(): Promise<void> {
    const now = Date.now();
    const auction = this.any(this.auctions.filter((a) => a.closesAtMs > now + 2_000));
    if (auction === undefined) return;
    // The creator may not bid in its own auction (403 principal_not_authorized).
    const bidder = this.any(this.actors.filter((a) => a !== auction.creator && !auction.bidders.includes(a)));
    if (bidder === undefined) return;
    // Taken before the request: another writer must not pick the same bidder meanwhile.
    auction.bidders.push(bidder);
    const auth = await this.bearer(bidder);
    const path = `/v1/markets/${auction.id}/sealed-bids`;
    const body = { commandId: this.commandId(bidder), principalId: bidder.id, amountMinor: 1 + Math.floor(this.random() * 1000), currency: "EUR" };
    const response = await this.send("sealed bid", "recorded", [200], "POST", path, body, auth);
    if (response?.status === 200) pushBounded(this.sent, { actor: bidder, path, body, status: 200 }, RECENT_COMMANDS);
    else auction.bidders.splice(auction.bidders.indexOf(bidder), 1);
  }

  /** Confirm (or decline, one in three) the oldest commitment still awaiting its participant. */
  private async settleCommitment(): Promise<void> {
    const now = Date.now();
    while (this.pending.length > 0 && (this.pending[0] as PendingCommitment).expiresAtMs < now + 1_500) this.pending.shift();
    const commitment = this.pending.shift();
    if (commitment === undefined) return;
    const auth = await this.bearer(commitment.principal);
    const action = this.random() < 0.33 ? "decline" : "confirm";
    // 409: it expired after all (a hold of a few seconds, a slow moment).
    await this.send(`commitment ${action}`, "recorded", [200, 409], "POST", `/v1/commitments/${commitment.id}/${action}`, { commandId: this.commandId(commitment.principal), principalId: commitment.principal.id }, auth);
  }

  /** Recorded although refused: a claim on a market that does not exist (spec §7.3). */
  private async claimMissingMarket(): Promise<void> {
    const actor = this.activeActor();
    const auth = await this.bearer(actor);
    await this.send("claim on a missing market", "recorded", [404], "POST", `/v1/markets/${this.id("missing")}/direct-claims`, { commandId: this.commandId(actor), principalId: actor.id }, auth);
  }

  /** Closed auctions: find the winner (its my-outcome holds the commitment) so it can confirm. */
  private async lookForWinners(): Promise<void> {
    const now = Date.now();
    const auction = this.auctions.find((a) => !a.winnerLooked && a.closesAtMs < now - 2_000);
    if (auction === undefined) return;
    auction.winnerLooked = true;
    for (const bidder of auction.bidders) {
      const auth = await this.bearer(bidder);
      const outcome = await this.send("my-outcome", "read", [200], "GET", `/v1/markets/${auction.id}/my-outcome`, undefined, auth);
      const commitment = (outcome?.body?.commitments as Array<{ id: string; state: string; expiresAt?: string }> | undefined)?.find((c) => c.state === "awaiting_confirmations");
      if (commitment?.expiresAt !== undefined) {
        this.pending.push({ id: commitment.id, principal: bidder, expiresAtMs: Date.parse(commitment.expiresAt) });
        return;
      }
    }
  }

  // ---- MCP ----

  /**
   * One tools/call (or tools/list when `tool` is undefined) over POST /mcp. `outcome`: what the
   * JSON-RPC reply must be — a result, a tool error (isError), a protocol error, or any of them.
   */
  private async mcpCall(
    name: string,
    kind: RequestKind,
    credentials: Credentials,
    tool: string | undefined,
    args: Record<string, unknown>,
    outcome: "result" | "tool error" | "rpc error" | "any",
  ): Promise<Record<string, unknown> | undefined> {
    const message = tool === undefined ? { jsonrpc: "2.0", id: 1, method: "tools/list" } : { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: tool, arguments: args } };
    let response: ServiceResponse;
    try {
      response = await this.client.request("POST", "/mcp", { body: message, credentials, headers: MCP_HEADERS });
    } catch (error) {
      this.count(name, kind, "error", [200], error instanceof Error ? error.message : String(error));
      return undefined;
    }
    const reply = response.body as { result?: Record<string, unknown>; error?: unknown } | undefined;
    const got = reply?.error !== undefined ? "rpc error" : reply?.result?.["isError"] === true ? "tool error" : "result";
    const matches = response.status === 200 && (outcome === "any" || got === outcome);
    this.count(name, kind, response.status, matches ? [response.status] : [], `${got}: ${response.text}`);
    return reply?.result;
  }

  // ---- reads and refused requests (as fast as answered) ----

  private readerActions(): Action[] {
    const market = () => this.any(this.directMarkets) ?? (this.directMarkets[0] as DirectMarket);
    const someMarketId = () => (this.random() < 0.7 ? market().id : (this.any(this.auctions)?.id ?? market().id));
    const bogusId = () => randomBytes(9).toString("base64url");
    const claimPath = () => `/v1/markets/${market().id}/direct-claims`;
    const reads: Action[] = [
      { name: "get market", kind: "read", weight: 6, run: async () => void (await this.send("get market", "read", [200], "GET", `/v1/markets/${someMarketId()}`, undefined, await this.bearer(this.activeActor()))) },
      { name: "get missing market", kind: "read", weight: 1, run: async () => void (await this.send("get missing market", "read", [404], "GET", `/v1/markets/${bogusId()}`, undefined, await this.bearer(this.activeActor()))) },
      {
        name: "get record",
        kind: "read",
        weight: 3,
        run: async () => {
          const m = market();
          await this.send("get record", "read", [200], "GET", `/v1/markets/${m.id}/record`, undefined, await this.bearer(m.creator));
        },
      },
      { name: "my-outcome", kind: "read", weight: 3, run: async () => void (await this.send("my-outcome", "read", [200], "GET", `/v1/markets/${someMarketId()}/my-outcome`, undefined, await this.bearer(this.activeActor()))) },
      {
        name: "identical retry",
        kind: "read",
        weight: 2,
        run: async () => {
          const sent = this.any(this.sent);
          if (sent === undefined) return;
          await this.send("identical retry", "read", [sent.status], "POST", sent.path, sent.body, await this.bearer(sent.actor));
        },
      },
      { name: "MCP tools/list", kind: "read", weight: 1, run: async () => void (await this.mcpCall("MCP tools/list", "read", await this.bearer(this.activeActor()), undefined, {}, "result")) },
      { name: "MCP tools/list (static token)", kind: "read", weight: 1, run: async () => void (await this.mcpCall("MCP tools/list (static token)", "read", { kind: "bearer", token: this.options.staticMcpToken }, undefined, {}, "result")) },
      { name: "MCP get_market", kind: "read", weight: 2, run: async () => void (await this.mcpCall("MCP get_market", "read", await this.bearer(this.activeActor()), "get_market", { marketId: someMarketId() }, "result")) },
      {
        name: "MCP get_market_record",
        kind: "read",
        weight: 1,
        run: async () => {
          const m = market();
          await this.mcpCall("MCP get_market_record", "read", await this.bearer(m.creator), "get_market_record", { marketId: m.id }, "result");
        },
      },
      // Accepted, but held only in memory until it expires (bounded: gateway/auth/memory-challenge-store.ts).
      {
        name: "challenge never used",
        kind: "read",
        weight: 0.5,
        run: async () => {
          const actor = this.activeActor();
          await this.send("challenge never used", "read", [201], "POST", "/v1/auth/challenges", { actorId: actor.id, keyId: actor.keyId });
        },
      },
      { name: "healthz", kind: "read", weight: 1, run: async () => void (await this.send("healthz", "read", [200], "GET", "/healthz")) },
    ];
    const refused: Action[] = [
      { name: "bad JSON", kind: "refused", weight: 2, run: async () => void (await this.send("bad JSON", "refused", [400], "POST", claimPath(), '{"commandId": "x", ', await this.bearer(this.activeActor()))) },
      {
        name: "unknown field",
        kind: "refused",
        weight: 2,
        run: async () => {
          const actor = this.activeActor();
          await this.send("unknown field", "refused", [400], "POST", claimPath(), { commandId: bogusId(), principalId: actor.id, [`extra${this.serial % 97}`]: true }, await this.bearer(actor));
        },
      },
      {
        name: "invalid field",
        kind: "refused",
        weight: 1,
        run: async () => {
          const actor = this.activeActor();
          await this.send("invalid field", "refused", [400], "POST", `/v1/markets/${market().id}/sealed-bids`, { commandId: bogusId(), principalId: actor.id, amountMinor: "lots", currency: "eur" }, await this.bearer(actor));
        },
      },
      { name: "no credentials", kind: "refused", weight: 2, run: async () => void (await this.send("no credentials", "refused", [401], "GET", `/v1/markets/${someMarketId()}`)) },
      { name: "garbage bearer token", kind: "refused", weight: 3, run: async () => void (await this.send("garbage bearer token", "refused", [401], "GET", `/v1/markets/${someMarketId()}`, undefined, { kind: "bearer", token: randomBytes(32).toString("base64url") })) },
      { name: "malformed bearer token", kind: "refused", weight: 1, run: async () => void (await this.send("malformed bearer token", "refused", [401], "POST", claimPath(), { commandId: "x", principalId: "y" }, { kind: "bearer", token: randomBytes(1 + Math.floor(this.random() * 60)).toString("hex") })) },
      {
        name: "expired token",
        kind: "refused",
        weight: 2,
        run: async () => {
          const now = Date.now();
          const expired = this.any(this.expiredTokens.filter((t) => t.expiresAtMs < now - 2_000));
          if (expired === undefined) return;
          await this.send("expired token", "refused", [401], "GET", `/v1/markets/${someMarketId()}`, undefined, { kind: "bearer", token: expired.token });
        },
      },
      // A distinct bogus actor every time, signed with a secret the service never saw.
      { name: "bad HMAC (bogus actor)", kind: "refused", weight: 3, run: async () => void (await this.send("bad HMAC (bogus actor)", "refused", [401], "POST", "/v1/admin/identities", { commandId: bogusId() }, { kind: "hmac", actorId: `bogus-${bogusId()}`, secret: bogusId() })) },
      { name: "bad HMAC (wrong secret)", kind: "refused", weight: 1, run: async () => void (await this.send("bad HMAC (wrong secret)", "refused", [401], "GET", `/v1/markets/${someMarketId()}`, undefined, { kind: "hmac", actorId: this.options.operator.actorId, secret: bogusId() })) },
      {
        name: "bad HMAC (stale timestamp)",
        kind: "refused",
        weight: 1,
        run: async () => {
          const { actorId, secret } = this.options.operator;
          await this.send("bad HMAC (stale timestamp)", "refused", [401], "GET", `/v1/markets/${someMarketId()}`, undefined, { kind: "hmac", actorId, secret, timestampSeconds: Math.floor(Date.now() / 1000) - 3600 });
        },
      },
      {
        name: "bad HMAC (garbage signature)",
        kind: "refused",
        weight: 1,
        run: async () => {
          const headers = { "x-service-actor": this.options.operator.actorId, "x-service-timestamp": String(Math.floor(Date.now() / 1000)), authorization: `Service-HMAC ${bogusId()}` };
          await this.send("bad HMAC (garbage signature)", "refused", [401], "GET", `/v1/markets/${someMarketId()}`, undefined, undefined, headers);
        },
      },
      {
        name: "idempotency conflict",
        kind: "refused",
        weight: 2,
        run: async () => {
          const sent = this.any(this.sent);
          if (sent === undefined) return;
          // Same actor and commandId, other content: the principal differs.
          await this.send("idempotency conflict", "refused", [409], "POST", sent.path, { ...sent.body, principalId: `${String(sent.body["principalId"])}-other` }, await this.bearer(sent.actor));
        },
      },
      {
        name: "oversized body (declared)",
        kind: "refused",
        weight: 1,
        run: () => this.sendRaw("oversized body (declared)", [400], `POST ${claimPath()} HTTP/1.1\r\nHost: soak\r\nContent-Type: application/json\r\nContent-Length: ${OVERSIZED_UNREAD_BYTES}`),
      },
      {
        name: "oversized body (chunked)",
        kind: "refused",
        weight: 0.3,
        run: () => {
          const chunk = Buffer.alloc(OVERSIZED_BYTES, 0x20);
          const body = Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from("\r\n0\r\n\r\n")]);
          return this.sendRaw("oversized body (chunked)", [400], `POST ${claimPath()} HTTP/1.1\r\nHost: soak\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked`, body);
        },
      },
      { name: "unknown route", kind: "refused", weight: 2, run: async () => void (await this.send("unknown route", "refused", [404], "GET", `/v1/${bogusId()}/${bogusId()}`)) },
      { name: "wrong method", kind: "refused", weight: 1, run: async () => void (await this.send("wrong method", "refused", [405], "GET", "/v1/auth/tokens")) },
      // Methods outside the nine uWS knows, a different one each time: uWS closes the connection
      // without calling any handler (status 0 here; docs/http.md, "HTTP/1.1 at the edge").
      { name: "unknown method", kind: "refused", weight: 1, run: () => this.sendRaw("unknown method", [0], `X${randomBytes(5).toString("hex").toUpperCase()} /v1/markets HTTP/1.1\r\nHost: soak`) },
      {
        name: "abandoned: partial body",
        kind: "refused",
        weight: 0.5,
        run: async () => {
          const { token } = await this.bearer(this.activeActor());
          await this.abandon("abandoned: partial body", `POST ${claimPath()} HTTP/1.1\r\nHost: soak\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 200`, Buffer.from('{"commandId": "'));
        },
      },
      {
        name: "abandoned: before the reply",
        kind: "refused",
        weight: 0.5,
        run: async () => {
          const m = market();
          const { token } = await this.bearer(m.creator);
          await this.abandon("abandoned: before the reply", `GET /v1/markets/${m.id}/record HTTP/1.1\r\nHost: soak\r\nAuthorization: Bearer ${token}`);
        },
      },
      { name: "GET with a body", kind: "refused", weight: 0.5, run: () => this.sendRaw("GET with a body", [400], `GET /v1/markets/${market().id} HTTP/1.1\r\nHost: soak\r\nContent-Length: 2`, Buffer.from("{}")) },
      { name: "bogus challenge", kind: "refused", weight: 2, run: async () => void (await this.send("bogus challenge", "refused", [401], "POST", "/v1/auth/challenges", { actorId: `nobody-${bogusId()}`, keyId: bogusId() })) },
      { name: "bogus token exchange", kind: "refused", weight: 2, run: async () => void (await this.send("bogus token exchange", "refused", [401], "POST", "/v1/auth/tokens", { challengeId: bogusId(), nonce: bogusId(), signature: randomBytes(64).toString("base64url") })) },
      {
        name: "record of another creator",
        kind: "refused",
        weight: 1,
        run: async () => {
          const m = market();
          const reader = this.activeActor();
          if (reader === m.creator) return;
          await this.send("record of another creator", "refused", [403], "GET", `/v1/markets/${m.id}/record`, undefined, await this.bearer(reader));
        },
      },
      {
        name: "admin as a non-operator",
        kind: "refused",
        weight: 1,
        run: async () => void (await this.send("admin as a non-operator", "refused", [403], "POST", "/v1/admin/identities", { commandId: bogusId(), principalId: bogusId(), actorId: bogusId(), keyId: bogusId(), publicKey: generateKeyPair().publicKey }, await this.bearer(this.activeActor()))),
      },
      { name: "malformed query", kind: "refused", weight: 1, run: async () => void (await this.send("malformed query", "refused", [400], "GET", `/v1/markets/${market().id}/my-outcome?principalId=%ZZ${bogusId()}`, undefined, await this.bearer(this.activeActor()))) },
      { name: "overlong path id", kind: "refused", weight: 1, run: async () => void (await this.send("overlong path id", "refused", [404], "GET", `/v1/markets/${randomBytes(800).toString("hex")}`, undefined, await this.bearer(this.activeActor()))) },
      { name: "MCP unknown tool", kind: "refused", weight: 1, run: async () => void (await this.mcpCall("MCP unknown tool", "refused", await this.bearer(this.activeActor()), `tool_${bogusId()}`, {}, "rpc error")) },
      { name: "MCP invalid arguments", kind: "refused", weight: 1, run: async () => void (await this.mcpCall("MCP invalid arguments", "refused", await this.bearer(this.activeActor()), "get_market", { marketId: 7, [`x${this.serial % 13}`]: 1 }, "tool error")) },
      { name: "MCP not JSON", kind: "refused", weight: 1, run: async () => void (await this.send("MCP not JSON", "refused", [400], "POST", "/mcp", "{not json", await this.bearer(this.activeActor()), MCP_HEADERS)) },
      { name: "MCP without credentials", kind: "refused", weight: 1, run: async () => void (await this.send("MCP without credentials", "refused", [401], "POST", "/mcp", { jsonrpc: "2.0", id: 1, method: "tools/list" }, undefined, MCP_HEADERS)) },
    ];
    return [...reads, ...refused];
  }
}
