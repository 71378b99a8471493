/**
 * Live market events over a real server on a loopback port, read with real fetch streams
 * (docs/events.md): order and sequences as in the record, resume by Last-Event-ID and `after`,
 * visibility, refusals before the stream, keep-alives.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Harness, auctionMechanism, bidIdOf, claim, commitmentAction, commitmentIdOf, directClaimMechanism, expectError, openMarket, uid, type Principal } from "../http-api/support/harness.js";
import { EventStream } from "./support/event-stream.js";

let h: Harness;
let creator: Principal;
let alice: Principal;
let bob: Principal;
const open: EventStream[] = [];

/** A new participant (one active commitment per principal per market). */
function participant(): Promise<Principal> {
  return h.principal(uid("alice"));
}

async function stream(marketId: string, who: Principal, options: Parameters<typeof EventStream.open>[3] = {}): Promise<EventStream> {
  const opened = await EventStream.open(h.url, marketId, who.auth, options);
  open.push(opened);
  return opened;
}

async function recordEvents(marketId: string): Promise<Array<Record<string, unknown>>> {
  const record = await h.get(`/v1/markets/${encodeURIComponent(marketId)}/record`, creator.auth);
  expect(record.status, record.text).toBe(200);
  return record.body.events as Array<Record<string, unknown>>;
}

beforeAll(async () => {
  h = await Harness.start({ env: { EVENTS_KEEP_ALIVE_MS: "100" } });
  [creator, alice, bob] = await h.principals("creator", "alice", "bob");
});

afterAll(async () => {
  for (const s of open) s.close();
  await h.close();
});

describe("the stream", () => {
  it("opens with text/event-stream and no-store, starts live after the market's last event, and carries the record's events in order", async () => {
    const marketId = uid("order");
    await openMarket(h, creator, marketId, directClaimMechanism({ capacity: 10 }));
    const before = await recordEvents(marketId);
    const live = await stream(marketId, creator);
    expect(live.response.status).toBe(200);
    expect(live.response.headers.get("content-type")).toBe("text/event-stream");
    expect(live.response.headers.get("cache-control")).toBe("no-store");
    await live.waitFor((s) => s.frames.some((f) => f.event === "open"), "the open frame");
    const openFrame = live.frames.find((f) => f.event === "open");
    expect(openFrame?.lastEventId).toBe(String(before.length));
    expect(JSON.parse(openFrame?.data ?? "{}")).toEqual({ after: before.length });

    for (let i = 0; i < 4; i += 1) await claim(h, await participant(), marketId);
    const record = await recordEvents(marketId);
    await live.untilSequence(record.length);
    // Only what came after the stream opened, each once, in sequence order, exactly as the record shows it.
    expect(live.events.map((e) => e.event)).toEqual(record.slice(before.length));
    expect(live.events.map((e) => e.sequence)).toEqual(record.slice(before.length).map((e) => e["sequence"]));
    for (const frame of live.frames.filter((f) => f.event === "market-event")) expect(frame.lastEventId).toBe(String(JSON.parse(frame.data).sequence));
  });

  it("after=0 delivers the whole history from the record, then live events, with no gap and no duplicate", async () => {
    const marketId = uid("history");
    await openMarket(h, creator, marketId, directClaimMechanism({ capacity: 10 }));
    await claim(h, alice, marketId);
    const history = await stream(marketId, creator, { after: 0 });
    const recorded = await recordEvents(marketId);
    await history.untilSequence(recorded.length);
    await claim(h, bob, marketId);
    const record = await recordEvents(marketId);
    await history.untilSequence(record.length);
    expect(history.events.map((e) => e.event)).toEqual(record);
  });

  it("resumes with Last-Event-ID or ?after across a reconnect: the rest, each once", async () => {
    const marketId = uid("resume");
    await openMarket(h, creator, marketId, directClaimMechanism({ capacity: 10 }));
    const first = await stream(marketId, creator, { after: 0 });
    await claim(h, alice, marketId);
    const upTo = (await recordEvents(marketId)).length;
    await first.untilSequence(upTo);
    first.close();
    const lastSeen = first.events[first.events.length - 1]?.sequence ?? 0;
    await claim(h, bob, marketId);
    await claim(h, await participant(), marketId);
    const record = await recordEvents(marketId);
    for (const resumed of [await stream(marketId, creator, { lastEventId: String(lastSeen) }), await stream(marketId, creator, { after: lastSeen })]) {
      await resumed.untilSequence(record.length);
      expect([...first.events, ...resumed.events].map((e) => e.event)).toEqual(record);
    }
  });

  it("keeps an idle stream alive with keep-alive comments at the configured interval", async () => {
    const marketId = uid("idle");
    await openMarket(h, creator, marketId, directClaimMechanism({ capacity: 1 }));
    const idle = await stream(marketId, alice);
    await idle.waitFor((s) => (s.raw.match(/^: keep-alive$/gm) ?? []).length >= 3, "three keep-alive comments");
    expect(idle.ended).toBe(false);
    expect(idle.events).toEqual([]);
  });
});

describe("refusals come before the stream, as JSON errors", () => {
  it("401 without credentials or with a bad token, 404 for an unknown market", async () => {
    const marketId = uid("refusals");
    await openMarket(h, creator, marketId, directClaimMechanism({ capacity: 1 }));
    const anonymous = await fetch(`${h.url}/v1/markets/${marketId}/events`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("content-type")).toBe("application/json");
    expect(await anonymous.json()).toEqual({ error: { code: "unauthenticated", message: "request authentication failed" } });
    const badToken = await h.get(`/v1/markets/${marketId}/events`, { kind: "bearer", token: "not-a-token" });
    expectError(badToken, 401, "unauthenticated");
    const missing = await h.get(`/v1/markets/${uid("nowhere")}/events`, alice.auth);
    expectError(missing, 404, "market_not_found");
  });

  it("400 naming the field for a resume point that is not a sequence", async () => {
    const marketId = uid("bad-after");
    await openMarket(h, creator, marketId, directClaimMechanism({ capacity: 1 }));
    for (const after of ["abc", "-1", "1.5", "01", "9007199254740992", "1e3", ""]) {
      const response = await h.get(`/v1/markets/${marketId}/events?after=${encodeURIComponent(after)}`, alice.auth);
      expectError(response, 400, "invalid_request");
      expect(response.body.error.message).toMatch(/after/);
    }
    for (const lastEventId of ["x", "-2", "9007199254740993"]) {
      const response = await h.get(`/v1/markets/${marketId}/events`, alice.auth, { "last-event-id": lastEventId });
      expectError(response, 400, "invalid_request");
      expect(response.body.error.message).toMatch(/Last-Event-ID/);
    }
  });

  it("HMAC-signed requests are accepted as on GET of the market", async () => {
    const marketId = uid("hmac");
    await openMarket(h, creator, marketId, directClaimMechanism({ capacity: 1 }));
    const signed = await EventStream.open(h.url, marketId, h.operator(), { after: 0 });
    open.push(signed);
    expect(signed.response.status).toBe(200);
    await signed.untilSequence(2);
    // The operator is not the creator: it sees the public views.
    expect(signed.events.map((e) => e.event["type"])).toEqual(["market.draft_created", "market.published"]);
    expect(signed.events[0]?.event).not.toHaveProperty("commandId");
  });
});

describe("visibility: what GET of the market shows, and the record for its creator", () => {
  it("another actor sees public views only: no participant, command or commitment ids", async () => {
    const marketId = uid("visible");
    await openMarket(h, creator, marketId, directClaimMechanism({ capacity: 3, confirmation: "creator", holdDurationSeconds: 60 }));
    const creatorStream = await stream(marketId, creator, { after: 0 });
    const bobStream = await stream(marketId, bob, { after: 0 });
    await claim(h, alice, marketId);
    await claim(h, await participant(), marketId);
    expect((await commitmentAction(h, creator, commitmentIdOf(marketId, 1), "confirm")).status).toBe(200);
    expect((await commitmentAction(h, creator, commitmentIdOf(marketId, 2), "decline")).status).toBe(200);
    const record = await recordEvents(marketId);
    const last = record[record.length - 1]?.["sequence"] as number;
    await creatorStream.untilSequence(last);
    expect(creatorStream.events.map((e) => e.event)).toEqual(record);
    await bobStream.untilSequence(last);

    const seen = bobStream.events.map((e) => e.event);
    expect(seen.map((e) => e["type"])).toEqual(["market.draft_created", "market.published", "direct_claim.accepted", "direct_claim.accepted", "commitment.declined"]);
    for (const event of seen) expect(Object.keys(event).sort()).toEqual(["data", "id", "marketId", "marketVersion", "occurredAt", "sequence", "type"]);
    expect(seen.filter((e) => e["type"] === "direct_claim.accepted").map((e) => e["data"])).toEqual([
      { allocated: 1, capacity: 3 },
      { allocated: 2, capacity: 3 },
    ]);
    expect(seen.find((e) => e["type"] === "commitment.declined")?.["data"]).toEqual({ state: "declined" });
    // Nothing about alice, her commands or her commitments; the snapshot shows the creator, so may its view.
    const text = bobStream.raw;
    expect(text).not.toContain("alice");
    expect(text).not.toContain(commitmentIdOf(marketId, 1));
    expect(text).not.toMatch(/"commandId"/);
    // What the public saw agrees with GET of the market: the allocation after the decline.
    const market = await h.get(`/v1/markets/${marketId}`, bob.auth);
    expect(market.body.mechanismState).toEqual({ allocated: 1 });
  });

  it("a sealed auction's bid amounts appear on no stream while it is open; after it resolves only the creator sees the price", async () => {
    const marketId = uid("sealed");
    const closesAt = h.isoIn(60_000);
    await openMarket(h, creator, marketId, auctionMechanism({ closesAt, currency: "EUR" }));
    const streams = [await stream(marketId, creator, { after: 0 }), await stream(marketId, alice, { after: 0 }), await stream(marketId, bob, { after: 0 })];
    const live = [await stream(marketId, creator), await stream(marketId, bob)];
    const amounts = [424_242_001, 424_242_002];
    for (const [i, who] of [alice, bob].entries()) {
      const bid = await h.post(`/v1/markets/${marketId}/sealed-bids`, { commandId: uid("bid"), principalId: who.id, amountMinor: amounts[i], currency: "EUR" }, who.auth);
      expect(bid.status, bid.text).toBe(200);
    }
    const recordOpen = await recordEvents(marketId);
    const lastOpen = recordOpen[recordOpen.length - 1]?.["sequence"] as number;
    for (const s of [...streams, ...live]) await s.untilSequence(lastOpen);
    // A late subscriber's backlog too.
    const late = await stream(marketId, bob, { after: 0 });
    await late.untilSequence(lastOpen);
    for (const s of [...streams, ...live, late]) {
      for (const amount of amounts) expect(s.raw).not.toContain(String(amount));
    }
    expect(streams[2]?.events.filter((e) => e.event["type"] === "sealed_auction.bid_submitted").map((e) => e.event["data"])).toEqual([{ bidCount: 1 }, { bidCount: 2 }]);

    h.advance(61_000);
    const record = await recordEvents(marketId);
    const resolved = record.find((e) => e["type"] === "sealed_auction.resolved");
    expect(resolved).toBeDefined();
    const last = record[record.length - 1]?.["sequence"] as number;
    await streams[0]?.untilSequence(last);
    await streams[2]?.untilSequence(resolved?.["sequence"] as number);
    expect(streams[0]?.events.find((e) => e.event["type"] === "sealed_auction.resolved")?.event).toEqual(resolved);
    expect(streams[2]?.events.find((e) => e.event["type"] === "sealed_auction.resolved")?.event["data"]).toEqual({ outcome: "winner_selected", winningBidId: bidIdOf(marketId, 2) });
    expect(streams[2]?.raw).not.toContain(String(amounts[0]));
  });
});
