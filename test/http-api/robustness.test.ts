/**
 * Bad input and attacks (docs/errors.md "Request limits", docs/http.md): none may crash the service
 * or produce a 500. Each case is followed by a check that the service still answers normally.
 * Raw sockets (node:net) send what fetch cannot: invalid UTF-8, short bodies, dropped connections,
 * un-normalized targets, oversized header blocks.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  Harness,
  SUBJECT,
  directClaimMechanism,
  expectError,
  expectStatus,
  openMarket,
  uid,
  type Principal,
} from "./support/harness.js";
import { rawExchange, rawRequest, writeAll, type RawResponse } from "./support/raw.js";
import { signHmacRequest } from "@market-service/client";
import http from "node:http";

let h: Harness;
let alice: Principal;
let bob: Principal;
let liveMarket: string;

beforeAll(async () => {
  h = await Harness.start();
  alice = await h.principal("alice");
  bob = await h.principal("bob");
  liveMarket = uid("live");
  await openMarket(h, alice, liveMarket, directClaimMechanism({ capacity: 1000 }));
});

afterAll(async () => {
  await h?.close();
});

/** The service still answers: health, an authenticated read, and a command. */
async function expectAlive(): Promise<void> {
  expectStatus(await h.client.request("GET", "/healthz"), 200);
  const market = await h.get(`/v1/markets/${liveMarket}`, alice.auth);
  expectStatus(market, 200);
  expect(market.body.id).toBe(liveMarket);
  expectStatus(await h.post("/v1/markets", { commandId: uid("c"), marketId: uid("alive"), principalId: "alice", subject: SUBJECT, mechanism: directClaimMechanism({}) }, alice.auth), 201);
}

function bearer(): Record<string, string> {
  return { authorization: `Bearer ${alice.auth.token}` };
}

/** One raw POST with a correct Content-Length; resolves with the single response. */
async function rawPost(target: string, body: Buffer | string, headers: Record<string, string> = bearer()): Promise<RawResponse> {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body, "utf8");
  const result = await rawExchange(h.port, rawRequest("POST", target, { ...headers, "content-type": "application/json", "content-length": String(bytes.length) }, bytes));
  expect(result.responses.length, `no response (${result.end})`).toBe(1);
  return result.responses[0] as RawResponse;
}

async function rawGet(target: string, headers: Record<string, string> = bearer()): Promise<RawResponse> {
  const result = await rawExchange(h.port, rawRequest("GET", target, headers));
  expect(result.responses.length, `no response (${result.end})`).toBe(1);
  return result.responses[0] as RawResponse;
}

function expectRawError(response: RawResponse, status: number, code: string): void {
  expect({ status: response.status, code: (JSON.parse(response.body) as { error?: { code?: string } }).error?.code }, response.body).toEqual({ status, code });
  expect(response.headers.get("content-type")).toBe("application/json");
  expect(response.headers.get("x-request-id")).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
}

function createText(overrides: Record<string, string> = {}): string {
  const members: Record<string, string> = {
    commandId: JSON.stringify(uid("c")),
    marketId: JSON.stringify(uid("m")),
    principalId: '"alice"',
    subject: JSON.stringify(SUBJECT),
    mechanism: JSON.stringify(directClaimMechanism({})),
    ...overrides,
  };
  return `{${Object.entries(members).map(([k, v]) => `"${k}":${v}`).join(",")}}`;
}

describe("malformed bodies", () => {
  it("invalid UTF-8, a BOM, truncated and non-JSON bodies are 400 invalid_request", async () => {
    const valid = Buffer.from(createText({ commandId: '"XX"' }));
    const at = valid.indexOf("XX");
    const invalid = Buffer.from(valid);
    invalid[at] = 0xff;
    invalid[at + 1] = 0xfe;
    expectRawError(await rawPost("/v1/markets", invalid), 400, "invalid_request");
    // An encoded lone surrogate (ED A0 80) is not UTF-8 either; nor is an overlong encoding of '/'.
    expectRawError(await rawPost("/v1/markets", Buffer.concat([valid.subarray(0, at), Buffer.from([0xed, 0xa0, 0x80]), valid.subarray(at + 2)])), 400, "invalid_request");
    expectRawError(await rawPost("/v1/markets", Buffer.concat([valid.subarray(0, at), Buffer.from([0xc0, 0xaf]), valid.subarray(at + 2)])), 400, "invalid_request");
    expectRawError(await rawPost("/v1/markets", Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), valid])), 400, "invalid_request");
    const text = createText();
    for (const body of [text.slice(0, text.length / 2), "{", "{}}", `${text.slice(0, -1)},}`, "{'commandId':'x'}", "NaN", `${text}\u0000`, "\u0000"]) {
      expectRawError(await rawPost("/v1/markets", body), 400, "invalid_request");
    }
    await expectAlive();
  });

  it("deep nesting is refused at 33 levels without exhausting the stack; 32 levels are accepted", async () => {
    const nest = (levels: number): string => "{\"a\":".repeat(levels) + "{}" + "}".repeat(levels);
    // body = 1, subject = 2, data = 3: 29 objects below data reach depth 32.
    expectStatus(await h.post("/v1/markets", createText({ subject: `{"schema":"deep","data":${nest(29)}}` }), alice.auth), 201);
    expectError(await h.post("/v1/markets", createText({ subject: `{"schema":"deep","data":${nest(30)}}` }), alice.auth), 400, "invalid_request");
    expectError(await h.post("/v1/markets", createText({ subject: `{"schema":"deep","data":${nest(100_000)}}` }), alice.auth), 400, "invalid_request");
    const arrays = "[".repeat(200_000) + "]".repeat(200_000);
    expectError(await h.post("/v1/markets", createText({ subject: `{"schema":"deep","data":{"x":${arrays}}}` }), alice.auth), 400, "invalid_request");
    await expectAlive();
  });

  it("numbers: 1e400, underflow, huge integers are refused; -0 is accepted as 0", async () => {
    for (const literal of ["1e400", "-1e400", "1e-400", "9007199254740992", "-9007199254740992", "123456789012345678901234567890"]) {
      expectError(await h.post("/v1/markets", createText({ subject: `{"schema":"n","data":{"x":${literal}}}` }), alice.auth), 400, "invalid_request");
      expectError(await h.post(`/v1/markets/${liveMarket}/direct-claims`, `{"commandId":"${uid("c")}","principalId":"bob","expectedVersion":${literal}}`, bob.auth), 400, "invalid_request");
    }
    // -0 on a claim is expectedVersion 0 (server arrival order).
    const commandId = uid("c");
    const claimed = await h.post(`/v1/markets/${liveMarket}/direct-claims`, `{"commandId":"${commandId}","principalId":"bob","expectedVersion":-0}`, bob.auth);
    expectStatus(claimed, 200);
    const record = await h.get(`/v1/markets/${liveMarket}/record`, alice.auth);
    const recorded = record.body.commands.find((c: { id: string }) => c.id === commandId);
    expect(recorded.request.expectedVersion).toBe(0);
    expect(Object.is(recorded.request.expectedVersion, -0)).toBe(false);
    expect(record.body.integrity.stateReconstructed).toBe(true);
    // -0 where a positive version is required is still refused.
    expectError(await h.post(`/v1/markets/${uid("m")}/publish`, `{"commandId":"${uid("p")}","principalId":"alice","expectedVersion":-0}`, alice.auth), 400, "invalid_request");
    await expectAlive();
  });

  it("NUL and lone surrogates: refused in identifiers, lone surrogates refused everywhere", async () => {
    expectError(await h.post("/v1/markets", createText({ commandId: '"a\\u0000b"' }), alice.auth), 400, "invalid_request");
    expectError(await h.post("/v1/markets", createText({ marketId: '"m\\u0000"' }), alice.auth), 400, "invalid_request");
    expectError(await h.post("/v1/markets", createText({ marketId: '"m\\u007f"' }), alice.auth), 400, "invalid_request");
    expectError(await h.post("/v1/markets", createText({ principalId: '"alice\\u0000"' }), alice.auth), 400, "invalid_request");
    // A raw (unescaped) control character inside a string is not JSON.
    expectRawError(await rawPost("/v1/markets", Buffer.from(createText({ commandId: '"a\u0000b"' }))), 400, "invalid_request");
    for (const lone of ['"\\ud800"', '"\\udfff"', '"x\\ud800y"', '"\\udc00\\ud800"']) {
      expectError(await h.post("/v1/markets", createText({ commandId: lone }), alice.auth), 400, "invalid_request");
      expectError(await h.post("/v1/markets", createText({ subject: `{"schema":"s","data":{"v":${lone}}}` }), alice.auth), 400, "invalid_request");
      expectError(await h.post("/v1/markets", createText({ subject: `{"schema":"s","data":{${lone}:1}}` }), alice.auth), 400, "invalid_request");
    }
    // A proper pair is fine.
    expectStatus(await h.post("/v1/markets", createText({ subject: '{"schema":"s","data":{"v":"\\ud83d\\ude00"}}' }), alice.auth), 201);
    await expectAlive();
  });

  it("unknown top-level members are refused, whatever their name", async () => {
    for (const name of ["__proto__", "constructor", "prototype", "actorId", "occurredAt", "identity"]) {
      const text = createText().replace(/^\{/, `{"${name}":{"x":1},`);
      expectError(await h.post("/v1/markets", text, alice.auth), 400, "invalid_request");
    }
    await expectAlive();
  });
});

describe("bodies and connections", () => {
  it("a body shorter than its Content-Length followed by a dropped connection gets no reply and harms nothing", async () => {
    const result = await rawExchange(h.port, (socket) => {
      socket.write(rawRequest("POST", "/v1/markets", { ...bearer(), "content-type": "application/json", "content-length": "5000" }, '{"commandId":"half'));
      setImmediate(() => socket.destroy());
    }, { timeoutMs: 5_000 });
    expect(result.responses).toEqual([]);
    await expectAlive();
  });

  it("a connection dropped in the middle of a large body, next to a live request", async () => {
    const big = createText({ subject: `{"schema":"s","data":{"pad":"${"x".repeat(600_000)}"}}` });
    const dropped = rawExchange(h.port, async (socket) => {
      socket.write(rawRequest("POST", "/v1/markets", { ...bearer(), "content-type": "application/json", "content-length": String(big.length) }));
      socket.write(big.slice(0, 300_000));
      await new Promise((resolve) => setImmediate(resolve));
      socket.destroy();
    }, { timeoutMs: 5_000 });
    const live = h.get(`/v1/markets/${liveMarket}`, alice.auth);
    const [droppedResult, liveResult] = await Promise.all([dropped, live]);
    expect(droppedResult.responses).toEqual([]);
    expectStatus(liveResult, 200);
    await expectAlive();
  });

  it("a declared body over 1 MiB is read to its end and dropped, then refused, and the connection is closed", async () => {
    const result = await rawExchange(h.port, async (socket) => {
      socket.write(rawRequest("POST", "/v1/markets", { ...bearer(), "content-type": "application/json", "content-length": String(2 * 1024 * 1024) }));
      await writeAll(socket, Buffer.alloc(2 * 1024 * 1024, 0x20));
    }, { timeoutMs: 10_000 });
    expect(result.responses).toHaveLength(1);
    expectRawError(result.responses[0] as RawResponse, 400, "invalid_request");
    await expectAlive();
  });

  it("a chunked body crossing 1 MiB is refused", async () => {
    const result = await rawExchange(h.port, async (socket) => {
      socket.write(rawRequest("POST", "/v1/markets", { ...bearer(), "content-type": "application/json", "transfer-encoding": "chunked" }));
      // The server reads it to the last chunk (dropping what is past the limit), then answers.
      for (let i = 0; i < 32 && !socket.destroyed; i += 1) {
        socket.write("10000\r\n");
        await writeAll(socket, Buffer.alloc(0x10000, 0x20));
        if (!socket.destroyed) socket.write("\r\n");
      }
      if (!socket.destroyed) socket.write("0\r\n\r\n");
    }, { timeoutMs: 10_000 });
    expect(result.responses, result.end).toHaveLength(1);
    expectRawError(result.responses[0] as RawResponse, 400, "invalid_request");
    expect(JSON.parse((result.responses[0] as RawResponse).body).error.message).toContain("1 MiB");
    await expectAlive();
  });

  it("a GET with a body is 400", async () => {
    const result = await rawExchange(h.port, rawRequest("GET", `/v1/markets/${liveMarket}`, { ...bearer(), "content-length": "2" }, "{}"), { timeoutMs: 5_000 });
    expect(result.responses).toHaveLength(1);
    expectRawError(result.responses[0] as RawResponse, 400, "invalid_request");
    await expectAlive();
  });

  it("many concurrent good and bad requests are each answered, none with a 500", async () => {
    const requests = Array.from({ length: 60 }, (_, i) => {
      switch (i % 6) {
        case 0:
          return h.get(`/v1/markets/${liveMarket}`, alice.auth);
        case 1:
          return h.post("/v1/markets", "{not json", alice.auth);
        case 2:
          return h.get("/v1/markets/x", { kind: "bearer", token: "bad" });
        case 3:
          return h.post(`/v1/markets/${liveMarket}/direct-claims`, { commandId: uid("c"), principalId: "alice" }, alice.auth);
        case 4:
          return h.client.request("DELETE", "/v1/markets/x");
        default:
          return h.post("/v1/commitments/%ZZ/confirm", {}, alice.auth);
      }
    });
    const statuses = (await Promise.all(requests)).map((r) => r.status);
    expect(statuses).toEqual(Array.from({ length: 60 }, (_, i) => [200, 400, 401, 403, 405, 404][i % 6]));
    await expectAlive();
  });
});

describe("paths", () => {
  it("%2F and dots are ordinary characters of a market id; no normalization happens; . and .. are no market id", async () => {
    for (const marketId of ["a/b", "...", ".x", "../record", "x%2Fy"]) {
      const created = await h.post("/v1/markets", { commandId: uid("c"), marketId, principalId: "alice", subject: SUBJECT, mechanism: directClaimMechanism({}) }, alice.auth);
      expectStatus(created, 201);
      const target = `/v1/markets/${encodeURIComponent(marketId)}`;
      const read = await rawGet(target);
      expect({ marketId, status: read.status }).toEqual({ marketId, status: 200 });
      expect(JSON.parse(read.body).id).toBe(marketId);
      const record = await rawGet(`${target}/record`);
      expect(record.status).toBe(200);
      expect(JSON.parse(record.body).market.id).toBe(marketId);
    }
    // `.` and `..` are refused as new market ids (URL parsers drop them from a path, so no client could name the market).
    for (const marketId of [".", ".."]) {
      const created = await h.post("/v1/markets", { commandId: uid("c"), marketId, principalId: "alice", subject: SUBJECT, mechanism: directClaimMechanism({}) }, alice.auth);
      expectStatus(created, 400);
      expect(created.body.error.code).toBe("invalid_request");
      expect(created.body.error.message).toContain('marketId: must be a string of 1–128 characters with no control characters, and not "." or ".."');
    }
    // Raw, unencoded `..`: the segment is the market id "..", not a step up, and no market has it.
    const dots = await rawGet("/v1/markets/../record");
    expect(dots.status).toBe(404);
    expect(JSON.parse(dots.body).error.code).toBe("market_not_found");
    // A raw `..` cannot reach another route either.
    expectRawError(await rawGet("/v1/markets/../../healthz"), 404, "not_found");
    // HMAC signs the raw target, escapes included.
    const uri = "/v1/markets/a%2Fb";
    const signed = signHmacRequest({ actorId: "operator", secret: "operator-secret-0123456789-abcdefghijklmnop", method: "GET", uri, timestampSeconds: h.nowSeconds() });
    const viaHmac = await rawGet(uri, { "x-service-actor": signed["X-Service-Actor"], "x-service-timestamp": signed["X-Service-Timestamp"], authorization: signed.Authorization });
    expect(viaHmac.status).toBe(200);
    expect(JSON.parse(viaHmac.body).id).toBe("a/b");
    await expectAlive();
  });

  it("malformed escapes, encoded control characters and raw non-ASCII in a path parameter are 404 not_found", async () => {
    for (const target of ["/v1/markets/%ZZ", "/v1/markets/%", "/v1/markets/a%2", "/v1/markets/%00", "/v1/markets/%7F", "/v1/markets/%C3%28", "/v1/markets/%ED%A0%80", "/v1/commitments/%FF/confirm"]) {
      const response = target.endsWith("/confirm")
        ? await rawPost(target, `{"commandId":"${uid("x")}","principalId":"alice"}`)
        : await rawGet(target);
      expect({ target, status: response.status }).toEqual({ target, status: 404 });
      expect(JSON.parse(response.body).error.code).toBe("not_found");
    }
    const raw = await rawExchange(h.port, Buffer.concat([Buffer.from("GET /v1/markets/"), Buffer.from("é", "utf8"), Buffer.from(` HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${alice.auth.token}\r\n\r\n`)]), { timeoutMs: 5_000 });
    expect(raw.responses).toHaveLength(1);
    expectRawError(raw.responses[0] as RawResponse, 404, "not_found");
    await expectAlive();
  });

  it("over-long ids: > 128 characters in a body is 400; in a path up to 1024 it is a lookup (404 market_not_found), beyond 1024 not_found", async () => {
    const id128 = "m".repeat(128);
    const id129 = "m".repeat(129);
    expectStatus(await h.post("/v1/markets", { commandId: uid("c"), marketId: id128, principalId: "alice", subject: SUBJECT, mechanism: directClaimMechanism({}) }, alice.auth), 201);
    expectStatus(await h.get(`/v1/markets/${id128}`, alice.auth), 200);
    expectError(await h.post("/v1/markets", { commandId: uid("c"), marketId: id129, principalId: "alice", subject: SUBJECT, mechanism: directClaimMechanism({}) }, alice.auth), 400, "invalid_request");
    expectError(await h.post("/v1/markets", { commandId: "c".repeat(129), marketId: uid("m"), principalId: "alice", subject: SUBJECT, mechanism: directClaimMechanism({}) }, alice.auth), 400, "invalid_request");
    expectError(await h.post("/v1/delegations", { commandId: uid("d"), delegationId: "d".repeat(129), principalId: "alice", delegateActorId: "bob", scopes: ["market:claim"] }, alice.auth), 400, "invalid_request");
    expectError(await h.post("/v1/markets", { commandId: uid("c"), marketId: uid("m"), principalId: "alice", subject: { schema: "s".repeat(257), data: {} }, mechanism: directClaimMechanism({}) }, alice.auth), 400, "invalid_request");
    expectStatus(await h.post("/v1/markets", { commandId: uid("c"), marketId: uid("m"), principalId: "alice", subject: { schema: "s".repeat(256), data: {} }, mechanism: directClaimMechanism({}) }, alice.auth), 201);

    expectError(await h.get(`/v1/markets/${id129}`, alice.auth), 404, "market_not_found");
    expectError(await h.get(`/v1/markets/${"m".repeat(1024)}`, alice.auth), 404, "market_not_found");
    expectError(await h.get(`/v1/markets/${"m".repeat(1025)}`, alice.auth), 404, "not_found");
    expectError(await h.post(`/v1/markets/${"m".repeat(1025)}/publish`, { commandId: uid("p"), principalId: "alice", expectedVersion: 1 }, alice.auth), 404, "not_found");
    expectError(await h.post(`/v1/commitments/${"c".repeat(5000)}/confirm`, { commandId: uid("x"), principalId: "alice" }, alice.auth), 404, "not_found");
    expectError(await h.post(`/v1/commitments/c.${"A".repeat(1000)}.1/confirm`, { commandId: uid("x"), principalId: "alice" }, alice.auth), 404, "commitment_not_found");
    // A delegation id is an identifier of the identity store: over 128 characters it is an invalid command.
    expectError(await h.post(`/v1/delegations/${"d".repeat(129)}/revoke`, { commandId: uid("r"), principalId: "alice" }, alice.auth), 400, "invalid_command");
    expectError(await h.post(`/v1/delegations/${"d".repeat(1025)}/revoke`, { commandId: uid("r"), principalId: "alice" }, alice.auth), 404, "not_found");
    expectError(await h.post(`/v1/delegations/${"d".repeat(128)}/revoke`, { commandId: uid("r"), principalId: "alice" }, alice.auth), 404, "delegation_not_found");
    await expectAlive();
  });
});

describe("query parameters", () => {
  it("my-outcome decodes principalId/authorityRef strictly: malformed escapes, invalid UTF-8 and control characters are 400", async () => {
    const base = `/v1/markets/${liveMarket}/my-outcome`;
    for (const query of ["principalId=%ZZ", "principalId=%", "principalId=a%2", "principalId=%ED%A0%80", "principalId=%C3%28", "principalId=a%01b", "principalId=a%7Fb", "principalId=bob&authorityRef=%FF", "principalId=bob&authorityRef=x%00"]) {
      expectError(await h.get(`${base}?${query}`, alice.auth), 400, "invalid_request");
    }
    // Well-formed escapes decode: a 4-byte UTF-8 principal is looked up as such.
    expectError(await h.get(`${base}?principalId=%F0%9F%98%80&authorityRef=no-such`, alice.auth), 403, "delegation_not_found");
    expectError(await h.get(`${base}?principalId=b%6Fb`, alice.auth), 403, "authority_reference_required");
    const own = await h.get(`${base}?principalId=%61lice`, alice.auth);
    expectStatus(own, 200);
    expect(own.body.principalId).toBe("alice");
    await expectAlive();
  });
});

describe("headers", () => {
  it("header bytes over 16 KiB are 400; a header block beyond uWS's limit is dropped without a reply", async () => {
    const response = await rawGet(`/v1/markets/${liveMarket}`, { ...bearer(), "x-padding": "p".repeat(20_000) });
    expectRawError(response, 400, "invalid_request");
    expect(JSON.parse(response.body).error.message).toContain("16384");
    const huge = await rawExchange(h.port, rawRequest("GET", `/v1/markets/${liveMarket}`, { ...bearer(), "x-padding": "p".repeat(300_000) }), { timeoutMs: 5_000 });
    expect(huge.responses).toEqual([]);
    expect(["reset", "closed"]).toContain(huge.end);
    await expectAlive();
  });

  it("repeated singleton headers are 400", async () => {
    const text = rawRequest("GET", `/v1/markets/${liveMarket}`, {}).toString("latin1").replace("\r\n\r\n", `\r\nauthorization: Bearer ${alice.auth.token}\r\nauthorization: Bearer ${bob.auth.token}\r\n\r\n`);
    const result = await rawExchange(h.port, text, { timeoutMs: 5_000 });
    expect(result.responses).toHaveLength(1);
    expectRawError(result.responses[0] as RawResponse, 400, "invalid_request");
    await expectAlive();
  });

  it("x-request-id is echoed when sane and replaced otherwise; every response is application/json", async () => {
    const cases: Array<Promise<{ status: number; headers: Headers }>> = [
      h.client.request("GET", "/healthz", { credentials: { kind: "none" }, headers: { "x-request-id": "req-200.ok:1" } }),
      h.post("/v1/markets", { commandId: uid("c"), marketId: uid("m"), principalId: "alice", subject: SUBJECT, mechanism: directClaimMechanism({}) }, alice.auth, { "x-request-id": "req-201" }),
      h.post("/v1/markets", "{", alice.auth, { "x-request-id": "req-400" }),
      h.get("/v1/markets/x", { kind: "none" }, { "x-request-id": "req-401" }),
      h.get(`/v1/markets/${liveMarket}/record`, bob.auth, { "x-request-id": "req-403" }),
      h.get("/v1/nothing", alice.auth, { "x-request-id": "req-404" }),
      h.client.request("DELETE", "/healthz", { credentials: { kind: "none" }, headers: { "x-request-id": "req-405" } }),
      h.post("/v1/markets", { commandId: uid("c"), marketId: liveMarket, principalId: "alice", subject: SUBJECT, mechanism: directClaimMechanism({}) }, alice.auth, { "x-request-id": "req-409" }),
      h.post("/v1/markets", { commandId: uid("c"), marketId: uid("m"), principalId: "alice", subject: SUBJECT, mechanism: { presetId: "x", config: {} } }, alice.auth, { "x-request-id": "req-422" }),
    ];
    const responses = await Promise.all(cases);
    expect(responses.map((r) => r.status)).toEqual([200, 201, 400, 401, 403, 404, 405, 409, 422]);
    expect(responses.map((r) => r.headers.get("x-request-id"))).toEqual(["req-200.ok:1", "req-201", "req-400", "req-401", "req-403", "req-404", "req-405", "req-409", "req-422"]);
    for (const response of responses) expect(response.headers.get("content-type")).toBe("application/json");

    for (const insane of ["has space", "x".repeat(129), "semi;colon", "quote\"", "ünïcode"]) {
      const response = await fetch(`${h.url}/healthz`, { headers: { "x-request-id": Buffer.from(insane, "utf8").toString("latin1") } });
      const id = response.headers.get("x-request-id");
      expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect(id).not.toBe(insane);
    }
    const generated = await Promise.all([h.client.request("GET", "/healthz"), h.client.request("GET", "/healthz")]);
    const [a, b] = generated.map((r) => r.headers.get("x-request-id"));
    expect(a).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(a).not.toBe(b);
  });
});

describe("HTTP framing", () => {
  /** A request through node:http on one keep-alive connection (a real client's parser, not ours). */
  function viaNodeHttp(agent: http.Agent, method: string, path: string): Promise<{ status?: number; body?: string; error?: string }> {
    return new Promise((resolve) => {
      const request = http.request({ host: "127.0.0.1", port: h.port, path, method, agent, headers: { authorization: `Bearer ${alice.auth.token}` } }, (response) => {
        let body = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (body += chunk));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
      });
      request.on("error", (error) => resolve({ error: error.message }));
      request.end();
    });
  }

  it("a HEAD response carries no content (RFC 9110 §9.3.2), so a keep-alive connection stays in sync", async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      for (const path of ["/healthz", `/v1/markets/${liveMarket}`]) {
        const head = await viaNodeHttp(agent, "HEAD", path);
        expect(head.error, `HEAD ${path}`).toBeUndefined();
        expect([200, 405]).toContain(head.status);
        expect(head.body).toBe("");
        const get = await viaNodeHttp(agent, "GET", path);
        expect({ path, status: get.status, error: get.error }).toEqual({ path, status: 200, error: undefined });
      }
    } finally {
      agent.destroy();
    }
    await expectAlive();
  });

  it("other unsupported methods are 405 with an allow header", async () => {
    for (const method of ["OPTIONS", "PATCH", "TRACE", "PUT", "DELETE"]) {
      const result = await rawExchange(h.port, rawRequest(method, "/healthz", {}), { timeoutMs: 5_000 });
      expect(result.responses).toHaveLength(1);
      expectRawError(result.responses[0] as RawResponse, 405, "method_not_allowed");
      expect(result.responses[0]?.headers.get("allow")).toContain("GET");
    }
    await expectAlive();
  });
});
