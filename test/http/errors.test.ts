/**
 * The code → status table: exact per code, complete over every code a reply may carry, and in step
 * with docs/errors.md.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  SERVICE_ERROR_CODES as ERROR_CODES,
  AUTHENTICATION_FAILED_MESSAGE,
  errorBody,
  errorReply,
  fail,
  HttpError,
  INTERNAL_ERROR_MESSAGE,
  statusForErrorCode,
} from "../../gateway/http/index.js";

const EXPECTED: Record<string, number> = {
  invalid_request: 400,
  invalid_command: 400,
  unauthenticated: 401,
  forbidden: 403,
  authority_reference_required: 403,
  principal_not_authorized: 403,
  actor_not_authorized: 403,
  delegation_inactive: 403,
  delegation_not_found: 403,
  not_found: 404,
  market_not_found: 404,
  commitment_not_found: 404,
  identity_not_found: 404,
  method_not_allowed: 405,
  idempotency_conflict: 409,
  concurrent_update: 409,
  version_conflict: 409,
  invalid_market_transition: 409,
  invalid_commitment_transition: 409,
  capacity_exhausted: 409,
  identity_conflict: 409,
  delegation_conflict: 409,
  unknown_mechanism: 422,
  invalid_mechanism_config: 422,
  internal_error: 500,
  service_unavailable: 503,
};

describe("status table", () => {
  it("maps every code exactly", () => {
    expect([...ERROR_CODES].sort()).toEqual(Object.keys(EXPECTED).sort());
    for (const code of ERROR_CODES) expect(statusForErrorCode(code), code).toBe(EXPECTED[code]);
  });

  it("maps delegation_not_found by context", () => {
    expect(statusForErrorCode("delegation_not_found")).toBe(403);
    expect(statusForErrorCode("delegation_not_found", { delegationNotFound: 403 })).toBe(403);
    expect(statusForErrorCode("delegation_not_found", { delegationNotFound: 404 })).toBe(404);
    // The context concerns only that code.
    expect(statusForErrorCode("market_not_found", { delegationNotFound: 403 })).toBe(404);
  });

  it("is the table docs/errors.md shows", () => {
    const doc = readFileSync(new URL("../../docs/errors.md", import.meta.url), "utf8");
    const rows = new Map<string, string>();
    for (const match of doc.matchAll(/^\| `([a-z_]+)` \| ([^|]+) \|/gm)) rows.set(match[1] ?? "", (match[2] ?? "").trim());
    expect([...rows.keys()].sort()).toEqual([...ERROR_CODES].sort());
    for (const code of ERROR_CODES) {
      if (code === "delegation_not_found") expect(rows.get(code)).toBe("**403** / **404**");
      else expect(rows.get(code), code).toBe(String(EXPECTED[code]));
    }
  });
});

describe("messages", () => {
  it("fixes the unauthenticated and internal_error messages", () => {
    expect(errorBody("unauthenticated", "signature mismatch for key k1")).toEqual({
      error: { code: "unauthenticated", message: AUTHENTICATION_FAILED_MESSAGE },
    });
    expect(AUTHENTICATION_FAILED_MESSAGE).toBe("request authentication failed");
    expect(errorBody("internal_error", "TypeError at shard 3")).toEqual({ error: { code: "internal_error", message: "internal error" } });
    expect(INTERNAL_ERROR_MESSAGE).toBe("internal error");
    expect(new HttpError("unauthenticated", "token expired").message).toBe("request authentication failed");
    expect(errorBody("market_not_found", "market m does not exist").error.message).toBe("market m does not exist");
  });

  it("fail throws an HttpError with code and status", () => {
    let thrown: unknown;
    try {
      fail("version_conflict", "expected version 3, market is at 4");
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(HttpError);
    expect(thrown).toMatchObject({ code: "version_conflict", status: 409, message: "expected version 3, market is at 4" });
    expect(() => fail("delegation_not_found", "d", { delegationNotFound: 404 })).toThrow(
      expect.objectContaining({ status: 404 }) as Error,
    );
  });

  it("errorReply builds the same reply without throwing", () => {
    expect(errorReply("capacity_exhausted", "no capacity left")).toEqual({
      status: 409,
      body: { error: { code: "capacity_exhausted", message: "no capacity left" } },
    });
    expect(errorReply("delegation_not_found", "no d1", { delegationNotFound: 404 }).status).toBe(404);
  });
});
