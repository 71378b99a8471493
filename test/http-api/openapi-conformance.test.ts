/**
 * The checker every suite reply goes through (support/openapi-conformance.ts) must itself catch a
 * reply that strays from the document, or the suite-wide check would prove nothing.
 */
import { describe, expect, it } from "vitest";
import { assertConforms } from "./support/openapi-conformance.js";

const URL_BASE = "http://127.0.0.1:1";

describe("the OpenAPI conformance check", () => {
  it("accepts a documented reply", () => {
    expect(() => assertConforms("GET", `${URL_BASE}/healthz`, 200, '{"status":"ok"}', "application/json")).not.toThrow();
    expect(() => assertConforms("GET", `${URL_BASE}/v1/markets/m-1`, 404, '{"error":{"code":"market_not_found","message":"no market"}}', "application/json")).not.toThrow();
  });

  it("refuses an undocumented member (the schemas are closed)", () => {
    expect(() => assertConforms("GET", `${URL_BASE}/healthz`, 200, '{"status":"ok","uptime":3}', "application/json")).toThrow(/additional/);
    expect(() => assertConforms("GET", `${URL_BASE}/v1/markets/m-1`, 404, '{"error":{"code":"market_not_found","message":"x","stack":"..."}}', "application/json")).toThrow(/additional/);
  });

  it("refuses a wrong type, a missing member and an undocumented status", () => {
    expect(() => assertConforms("GET", `${URL_BASE}/healthz`, 200, '{"status":"degraded"}', "application/json")).toThrow(/OpenAPI/);
    expect(() => assertConforms("POST", `${URL_BASE}/v1/markets`, 201, '{"market":{}}', "application/json")).toThrow(/required/);
    expect(() => assertConforms("GET", `${URL_BASE}/v1/markets/m-1`, 418, "{}", "application/json")).toThrow(/does not list/);
  });
});
