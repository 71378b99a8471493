import * as crypto from "node:crypto";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { verifyHmacRequest, type HmacRequest } from "../../gateway/auth/index.js";
import { signHmacRequest } from "@market-service/client";

// Spy on the comparison so the tests can see that every verdict goes through timingSafeEqual.
vi.mock("node:crypto", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:crypto")>();
  return { ...actual, timingSafeEqual: vi.fn(actual.timingSafeEqual) };
});

const SECRET = "example-secret-0123456789abcdefghij";
const settings = {
  hmacSecrets: new Map([["operator", Buffer.from(SECRET, "utf8")]]),
  hmacClockSkewSeconds: 300,
};
const NOW_S = 1_767_225_600; // 2026-01-01T00:00:00Z
const NOW_MS = NOW_S * 1000;
const BODY = '{"commandId":"c-1","principalId":"alice","actorId":"alice","keyId":"alice-key-1","publicKey":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}';

function signed(overrides: Partial<{ actorId: string; secret: string; method: string; uri: string; body: string; ts: number }> = {}): HmacRequest {
  const method = overrides.method ?? "POST";
  const uri = overrides.uri ?? "/v1/admin/identities";
  const body = overrides.body ?? BODY;
  const headers = signHmacRequest({
    actorId: overrides.actorId ?? "operator",
    secret: overrides.secret ?? SECRET,
    method,
    uri,
    body,
    timestampSeconds: overrides.ts ?? NOW_S,
  });
  return {
    actorHeader: headers["X-Service-Actor"],
    timestampHeader: headers["X-Service-Timestamp"],
    authorizationHeader: headers.Authorization,
    method,
    uri,
    bodyBytes: Buffer.from(body, "utf8"),
  };
}

describe("service-hmac-v1", () => {
  beforeEach(() => {
    vi.mocked(crypto.timingSafeEqual).mockClear(); // (a returned function would run as a teardown)
  });

  it("matches the worked example of docs/auth.md exactly", () => {
    const request = signed();
    expect(request.authorizationHeader).toBe("Service-HMAC nwc4mh5CJ5wwOM4kAo7_XbnLj5RBqmLmr1-AabhRycE");
    expect(verifyHmacRequest(settings, request, NOW_MS)).toBe("operator");
    const get = signed({ method: "GET", uri: "/v1/markets/m-1?x=1", body: "" });
    expect(get.authorizationHeader).toBe("Service-HMAC 5qhh9fc91sdsWcP9-DECxxHDpduY9UacdBNCNH-Pnng");
  });

  it("agrees with an independent node:crypto computation (client uses noble)", () => {
    for (const body of ["", "{}", "é ünïcode ✓", "x".repeat(70_000)]) {
      const request = signed({ body, uri: "/v1/markets?a=1&b=%20" });
      const bodyHash = crypto.createHash("sha256").update(body, "utf8").digest("hex");
      const canonical = `service-hmac-v1\noperator\n${NOW_S}\nPOST\n/v1/markets?a=1&b=%20\n${bodyHash}`;
      const expected = crypto.createHmac("sha256", SECRET).update(canonical).digest("base64url");
      expect(request.authorizationHeader).toBe(`Service-HMAC ${expected}`);
      expect(verifyHmacRequest(settings, request, NOW_MS)).toBe("operator");
    }
  });

  it("accepts timestamps within the skew window in both directions, inclusive", () => {
    expect(verifyHmacRequest(settings, signed({ ts: NOW_S - 300 }), NOW_MS)).toBe("operator");
    expect(verifyHmacRequest(settings, signed({ ts: NOW_S + 300 }), NOW_MS)).toBe("operator");
    expect(verifyHmacRequest(settings, signed({ ts: NOW_S - 301 }), NOW_MS)).toBeUndefined();
    expect(verifyHmacRequest(settings, signed({ ts: NOW_S + 301 }), NOW_MS)).toBeUndefined();
    expect(verifyHmacRequest({ ...settings, hmacClockSkewSeconds: 5 }, signed({ ts: NOW_S - 6 }), NOW_MS)).toBeUndefined();
  });

  it.each([
    ["body", (r: HmacRequest) => ({ ...r, bodyBytes: Buffer.from(BODY.replace(":", ": ")) })],
    ["empty body", (r: HmacRequest) => ({ ...r, bodyBytes: new Uint8Array(0) })],
    ["method", (r: HmacRequest) => ({ ...r, method: "PUT" })],
    ["uri path", (r: HmacRequest) => ({ ...r, uri: "/v1/admin/identities/" })],
    ["uri query", (r: HmacRequest) => ({ ...r, uri: "/v1/admin/identities?x=1" })],
    ["actor", (r: HmacRequest) => ({ ...r, actorHeader: "operator2" })],
    ["timestamp", (r: HmacRequest) => ({ ...r, timestampHeader: String(NOW_S + 1) })],
  ])("refuses a tampered %s", (_name, tamper) => {
    const multi = { ...settings, hmacSecrets: new Map([...settings.hmacSecrets, ["operator2", Buffer.from(SECRET)]]) };
    expect(verifyHmacRequest(multi, tamper(signed()), NOW_MS)).toBeUndefined();
    expect(crypto.timingSafeEqual).toHaveBeenCalledTimes(1);
  });

  it("upper-cases the received method (uWS reports it in lower case)", () => {
    expect(verifyHmacRequest(settings, { ...signed(), method: "post" }, NOW_MS)).toBe("operator");
  });

  it("refuses a wrong secret and an unknown actor, both through the same constant-time comparison", () => {
    expect(verifyHmacRequest(settings, signed({ secret: `${SECRET}!` }), NOW_MS)).toBeUndefined();
    expect(verifyHmacRequest(settings, signed({ actorId: "stranger" }), NOW_MS)).toBeUndefined();
    const calls = vi.mocked(crypto.timingSafeEqual).mock.calls;
    expect(calls).toHaveLength(2);
    for (const [a, b] of calls) {
      expect((a as Buffer).length).toBe(32);
      expect((b as Buffer).length).toBe(32);
    }
  });

  it.each([
    ["no Authorization", { authorizationHeader: undefined }],
    ["no actor header", { actorHeader: undefined }],
    ["no timestamp header", { timestampHeader: undefined }],
    ["Bearer scheme", { authorizationHeader: "Bearer abc" }],
    ["no space", { authorizationHeader: "Service-HMACabc" }],
    ["padded signature", { authorizationHeader: "Service-HMAC nwc4mh5CJ5wwOM4kAo7_XbnLj5RBqmLmr1-AabhRycE=" }],
    ["standard base64", { authorizationHeader: "Service-HMAC nwc4mh5CJ5wwOM4kAo7/XbnLj5RBqmLmr1+AabhRycE" }],
    ["short signature", { authorizationHeader: "Service-HMAC nwc4mh5CJ5wwOM4kAo7_XbnLj5RBqmLmr1-AabhRyc" }],
    ["non-canonical last character", { authorizationHeader: "Service-HMAC nwc4mh5CJ5wwOM4kAo7_XbnLj5RBqmLmr1-AabhRycF" }],
    ["timestamp with leading zero", { timestampHeader: `0${NOW_S}` }],
    ["timestamp with sign", { timestampHeader: `+${NOW_S}` }],
    ["timestamp in milliseconds", { timestampHeader: String(NOW_MS) }],
    ["fractional timestamp", { timestampHeader: `${NOW_S}.0` }],
  ])("refuses a malformed request (%s) without comparing", (_name, change) => {
    expect(verifyHmacRequest(settings, { ...signed(), ...change }, NOW_MS)).toBeUndefined();
    expect(crypto.timingSafeEqual).not.toHaveBeenCalled();
  });

  it("accepts the scheme name in any case and several spaces before the signature (RFC 9110 1*SP)", () => {
    const request = signed();
    const lower = { ...request, authorizationHeader: request.authorizationHeader?.replace("Service-HMAC", "service-hmac") };
    expect(verifyHmacRequest(settings, lower, NOW_MS)).toBe("operator");
    const spaced = { ...request, authorizationHeader: request.authorizationHeader?.replace(" ", "   ") };
    expect(verifyHmacRequest(settings, spaced, NOW_MS)).toBe("operator");
  });
});
