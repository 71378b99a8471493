/**
 * The hard cases of live events on a real server: a subscriber that does not read (its bounded
 * buffer, `event: overflow`, claims answered meanwhile, resume from `resumeAfter`), the client's
 * subscription across a server restart (no gap, no duplicate), and an idle stream that outlives
 * uWS's 10 s timer.
 */
import * as net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Harness, claim, commitmentAction, directClaimMechanism, openMarket, uid, type Principal } from "../http-api/support/harness.js";
import { freePort } from "../../scripts/free-port.js";
import { type MarketStreamEvent, subscribeMarketEvents } from "@market-service/client";
import { SseParser } from "../../packages/client/src/sse-parser.js";
import { EventStream, credentialHeaders, eventsPath } from "./support/event-stream.js";

let h: Harness;
let creator: Principal;

beforeAll(async () => {
  const port = await freePort();
  h = await Harness.start({ env: { PORT: String(port), EVENTS_SUBSCRIBER_BUFFER_BYTES: "4096", EVENTS_KEEP_ALIVE_MS: "1000" } });
  creator = await h.principal("creator-".padEnd(120, "c"));
});

afterAll(async () => {
  await h.close();
});

async function recordEvents(marketId: string): Promise<Array<Record<string, unknown>>> {
  const record = await h.get(`/v1/markets/${encodeURIComponent(marketId)}/record`, creator.auth);
  expect(record.status, record.text).toBe(200);
  return record.body.events as Array<Record<string, unknown>>;
}

/** The body of a chunked HTTP/1.1 response read from a raw socket (after its head). */
function dechunk(raw: Buffer): string {
  const headEnd = raw.indexOf("\r\n\r\n");
  let at = headEnd + 4;
  const parts: Buffer[] = [];
  while (at < raw.length) {
    const lineEnd = raw.indexOf("\r\n", at);
    if (lineEnd < 0) break;
    const size = Number.parseInt(raw.subarray(at, lineEnd).toString("latin1"), 16);
    if (!Number.isFinite(size) || size === 0) break;
    if (lineEnd + 2 + size > raw.length) break;
    parts.push(raw.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts).toString("utf8");
}

describe("a subscriber that does not read", () => {
  it("gets event: overflow naming its resume point, while every claim of the market is answered; it resumes from there", async () => {
    const marketId = uid("slow-".padEnd(120, "m"));
    await openMarket(h, creator, marketId, directClaimMechanism({ capacity: 100, confirmation: "creator", holdDurationSeconds: 600 }));
    // Long ids make the creator's events large, so fewer commands fill the socket's buffers.
    const participants: Principal[] = [];
    for (let i = 0; i < 40; i += 1) participants.push(await h.principal(uid("p").padEnd(120, "p")));

    const socket = net.connect(h.port, "127.0.0.1");
    const received: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => received.push(chunk));
    const path = eventsPath(marketId);
    const headers = Object.entries(await credentialHeaders(creator.auth, path)).map(([name, value]) => `${name}: ${value}\r\n`).join("");
    await new Promise<void>((resolve) => socket.once("connect", resolve));
    socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${headers}\r\n`);
    // Wait for the head, then stop reading: the kernel's buffers fill, then uWS's, then the subscriber's.
    await new Promise<void>((resolve) => socket.once("data", () => resolve()));
    socket.pause();
    expect(h.service.events.subscriberCount).toBe(1);

    let cycles = 0;
    let refused = 0;
    while (h.service.events.subscriberCount > 0 && cycles < 20_000) {
      const results = await Promise.all(
        participants.map(async (who) => {
          const claimed = await h.post(`/v1/markets/${encodeURIComponent(marketId)}/direct-claims`, { commandId: uid("claim").padEnd(128, "x"), principalId: who.id }, who.auth);
          if (claimed.status !== 200) return claimed.status;
          const commitmentId = claimed.body.commitments[0].id as string;
          const declined = await commitmentAction(h, creator, commitmentId, "decline", { commandId: uid("decline").padEnd(128, "y") });
          return declined.status;
        }),
      );
      refused += results.filter((status) => status !== 200).length;
      cycles += participants.length;
    }
    // The shard never waited for the subscriber: every claim and decline was answered.
    expect(refused).toBe(0);
    expect(h.service.events.subscriberCount).toBe(0);

    socket.resume();
    const overflowSeen = () => dechunk(Buffer.concat(received)).includes("event: overflow");
    const deadline = Date.now() + 60_000;
    while (!overflowSeen() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    socket.destroy();
    const parser = new SseParser();
    const frames = parser.push(dechunk(Buffer.concat(received)));
    const overflow = frames.find((frame) => frame.event === "overflow");
    expect(overflow).toBeDefined();
    const body = JSON.parse(overflow?.data ?? "{}") as { code: string; message: string; resumeAfter: number };
    expect(body.code).toBe("subscriber_too_slow");
    expect(body.message.length).toBeGreaterThan(0);
    // Everything before the overflow, in order and without a gap, up to resumeAfter; nothing after it.
    const events = frames.filter((frame) => frame.event === "market-event").map((frame) => Number(frame.lastEventId));
    const opened = Number(frames.find((frame) => frame.event === "open")?.lastEventId);
    expect(events).toEqual(Array.from({ length: events.length }, (_, i) => opened + 1 + i));
    expect(body.resumeAfter).toBe(events.length === 0 ? opened : events[events.length - 1]);
    expect(frames[frames.length - 1]?.event).toBe("overflow");

    const record = await recordEvents(marketId);
    const resumed = await EventStream.open(h.url, marketId, creator.auth, { after: body.resumeAfter });
    try {
      await resumed.untilSequence(record.length, 60_000);
      expect(resumed.events.map((event) => event.event)).toEqual(record.slice(body.resumeAfter));
    } finally {
      resumed.close();
    }
  }, 120_000);
});

describe("the client's subscription", () => {
  it("resumes after a server restart with no gap and no duplicate", async () => {
    const marketId = uid("restart");
    await openMarket(h, creator, marketId, directClaimMechanism({ capacity: 20 }));
    const seen: MarketStreamEvent[] = [];
    const reconnects: string[] = [];
    const control = new AbortController();
    let token = creator.auth.token;
    const subscription = subscribeMarketEvents({
      baseUrl: h.url,
      marketId,
      after: 0,
      headers: () => ({ authorization: `Bearer ${token}` }),
      signal: control.signal,
      backoff: { initialDelayMs: 20, maxDelayMs: 200, maxAttempts: 200 },
      onReconnect: (info) => reconnects.push(info.reason),
    });
    const reading = (async () => {
      for await (const event of subscription) seen.push(event);
    })();
    const waitSeen = async (sequence: number) => {
      const deadline = Date.now() + 60_000;
      while (!seen.some((event) => event.sequence >= sequence) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(seen.map((event) => event.sequence)).toContain(sequence);
    };
    await claim(h, await h.principal(uid("r")), marketId);
    await waitSeen((await recordEvents(marketId)).length);
    await h.restart();
    // A token issued before the restart is still valid (the identity log is durable); a fresh one works as well.
    token = (await h.freshToken(creator)).token;
    await claim(h, await h.principal(uid("r")), marketId);
    await claim(h, await h.principal(uid("r")), marketId);
    const record = await recordEvents(marketId);
    await waitSeen(record.length);
    control.abort();
    await reading;
    expect(seen.map((event) => event.event)).toEqual(record);
    expect(reconnects.some((reason) => reason.startsWith("shutting_down"))).toBe(true);
    expect(subscription.lastSequence).toBe(record.length);
  });
});

describe("a raw stream across a restart", () => {
  it("resumes with Last-Event-ID on the restarted server: the rest, each once", async () => {
    const marketId = uid("restart-raw");
    await openMarket(h, creator, marketId, directClaimMechanism({ capacity: 20 }));
    const first = await EventStream.open(h.url, marketId, creator.auth, { after: 0 });
    await claim(h, await h.principal(uid("raw")), marketId);
    const before = await recordEvents(marketId);
    await first.untilSequence(before.length);
    await h.restart();
    // The stream ended with event: end (shutting_down) naming where to resume.
    await first.waitFor((s) => s.ended, "the stream to end");
    const end = first.frames.find((frame) => frame.event === "end");
    expect(JSON.parse(end?.data ?? "{}")).toMatchObject({ code: "shutting_down", resumeAfter: before.length });
    await claim(h, await h.principal(uid("raw")), marketId);
    const record = await recordEvents(marketId);
    const resumed = await EventStream.open(h.url, marketId, (await h.freshToken(creator)), { lastEventId: first.frames.filter((f) => f.event === "market-event").at(-1)?.lastEventId ?? "0" });
    try {
      await resumed.untilSequence(record.length);
      expect([...first.events, ...resumed.events].map((e) => e.event)).toEqual(record);
    } finally {
      resumed.close();
    }
  });
});

describe("an idle stream", () => {
  it("outlives uWS's 10 s timer: keep-alives keep coming and the stream is not cut", async () => {
    const marketId = uid("idle");
    await openMarket(h, creator, marketId, directClaimMechanism({ capacity: 1 }));
    const idle = await EventStream.open(h.url, marketId, creator.auth);
    try {
      // Waits for 13 keep-alives at 1 s: past the point where uWS cut a response whose reading was resumed.
      await idle.waitFor((s) => (s.raw.match(/^: keep-alive$/gm) ?? []).length >= 13, "13 keep-alive comments", 60_000);
      expect(idle.ended).toBe(false);
      // Still live: a claim now arrives.
      await claim(h, await h.principal(uid("late")), marketId);
      await idle.untilSequence(3);
    } finally {
      idle.close();
    }
  });
});
