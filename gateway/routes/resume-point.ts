/**
 * Where a subscriber resumes (docs/events.md): `?after=<sequence>` or the `Last-Event-ID` header
 * (what an EventSource or our client sends back: the `id` of the last event it received). A
 * sequence is a decimal integer 0..2^53-1; anything else is a 400 naming the field.
 */
import { fail } from "../http/errors.js";
import type { HttpRequestContext } from "../http/route.js";
import { queryParam } from "./request-helpers.js";

const DECIMAL = /^(0|[1-9][0-9]{0,15})$/;

function sequenceOf(text: string, field: string): number {
  const value = DECIMAL.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value)) fail("invalid_request", `${field} must be an event sequence: a decimal integer from 0 to ${Number.MAX_SAFE_INTEGER}`);
  return value;
}

/**
 * The sequence after which the stream starts, or undefined (live only: after the market's last
 * event now). `after` wins over `Last-Event-ID` when both are sent: a client names it on purpose.
 */
export function resumePoint(request: HttpRequestContext): number | undefined {
  const after = queryParam(request, "after");
  if (after !== undefined) return sequenceOf(after, "after");
  const lastEventId = request.headers.get("last-event-id");
  if (lastEventId !== undefined) return sequenceOf(lastEventId.trim(), "Last-Event-ID");
  return undefined;
}
