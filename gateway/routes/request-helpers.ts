/** What every route handler does first: authenticate the actor, parse the strict JSON body. */
import type { ErrorCode } from "@market-service/client/wire";
import type { AuthService } from "../auth/service.js";
import type { AuthenticatedActor } from "../auth/types.js";
import type { Clock } from "../../engine/clock.js";
import { fail, type ErrorStatusContext } from "../http/errors.js";
import { errorReply } from "../http/replies.js";
import type { HttpReply, HttpRequestContext } from "../http/route.js";
import { parseStrictJson } from "../http/strict-json/index.js";
import type { ApiReply } from "../api/market-api.js";
import type { TemporarilyUnavailable } from "../../engine/identity/unavailable.js";
import { serviceUnavailableReply } from "../http/readiness.js";

export interface RouteParts {
  auth: AuthService;
  clock: Clock;
}

/** The authenticated actor of the request, or a 401 reply ("request authentication failed"). */
export function requireActor(parts: RouteParts, request: HttpRequestContext, transport: "http" | "mcp" = "http"): AuthenticatedActor {
  const actor = parts.auth.authenticateRequest(
    {
      headers: (name) => request.headers.get(name),
      method: request.method,
      uri: request.url,
      bodyBytes: request.bodyBytes,
      transport,
    },
    parts.clock.nowMs(),
  );
  if (actor === undefined) fail("unauthenticated", "request authentication failed");
  return actor;
}

/** The body as a JSON object (strict: one value, no duplicate keys, safe numbers), or a 400 reply. */
export function readJsonBody(request: HttpRequestContext): Record<string, unknown> {
  const parsed = parseStrictJson(request.bodyBytes);
  if (!parsed.ok) fail("invalid_request", parsed.message);
  return parsed.value as Record<string, unknown>;
}

/** The response header that carries an accepted command's receipt (docs/proofs.md). */
export const RECEIPT_HEADER = "market-receipt";

/**
 * An API reply as an HTTP reply: success JSON as is, errors with their mapped status. Returned, not
 * thrown: in a capacity-limited claim storm most replies are 409s, and an exception per reply
 * (stack capture) was a large share of the gateway thread.
 */
export function toHttpReply(reply: ApiReply, context?: ErrorStatusContext): HttpReply {
  if (!reply.ok) return errorReply(reply.code, reply.message, context);
  if (reply.receipt !== undefined) return { status: reply.status, json: reply.json, headers: { [RECEIPT_HEADER]: reply.receipt } };
  return { status: reply.status, json: reply.json };
}

/**
 * A reply of the identity store (object body) as an HTTP reply; `service_unavailable` (the cluster
 * mode's identity log out of reach: nothing was recorded) is a 503 with Retry-After.
 */
export function identityToHttpReply(
  reply: { ok: true; status: number; body: unknown } | { ok: false; code: ErrorCode; message: string } | TemporarilyUnavailable,
  context?: ErrorStatusContext,
): HttpReply {
  if (!reply.ok && reply.code === "service_unavailable") return serviceUnavailableReply(reply.message);
  if (!reply.ok) fail(reply.code, reply.message, context);
  return { status: reply.status, body: reply.body };
}

/** C0 control characters and DEL, which identifiers exclude (docs/decisions.md D10). */
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

/** One query parameter (decoded), or undefined; a malformed or repeated one is a 400. */
export function queryParam(request: HttpRequestContext, name: string): string | undefined {
  if (request.query === "") return undefined;
  // URLSearchParams never throws: it keeps a malformed escape ("%ZZ") as literal text and decodes
  // escapes of invalid UTF-8 ("%ED%A0%80", "%FF") to U+FFFD, so `?principalId=` could silently name
  // another principal than the client sent. decodeURIComponent throws on both: refuse them here, as
  // path parameters are refused (docs/errors.md), before URLSearchParams decodes the accepted text.
  for (const component of request.query.split(/[&=]/)) {
    try {
      decodeURIComponent(component.replaceAll("+", " "));
    } catch {
      fail("invalid_request", "malformed query string");
    }
  }
  const params = new URLSearchParams(request.query);
  const values = params.getAll(name);
  if (values.length > 1) fail("invalid_request", `query parameter ${name} is repeated`);
  const value = values[0];
  // The query's identifiers follow the same rule as in bodies (D10), control characters included.
  if (value !== undefined && (value.length === 0 || value.length > 128 || !value.isWellFormed() || CONTROL_CHARACTER.test(value))) {
    fail("invalid_request", `query parameter ${name} must be 1 to 128 characters without control characters`);
  }
  return value;
}
