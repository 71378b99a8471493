/**
 * An id as one segment of a request's path. `.` and `..` are refused before anything is sent: URL
 * parsers (fetch's included) remove them from a path as dot segments, `%2e` too, so a request for
 * market `.` would reach another resource (`/v1/markets/./record` is `/v1/markets/record`). The
 * service refuses them as market and delegation ids for the same reason (PathIdentifier,
 * packages/client/src/wire/shared.ts).
 */
import { isDotSegment } from "./wire/index.js";
import { MarketServiceError } from "./service-error.js";

/** Why `id` cannot be a path segment, or undefined when it can. */
export function dotSegmentProblem(field: string, id: string): string | undefined {
  return isDotSegment(id) ? `${field} may not be "." or "..": URL parsers remove such a segment from a path, so no request can name it` : undefined;
}

/**
 * `id` percent-encoded as one path segment. For `.` and `..` it throws MarketServiceError
 * `invalid_request` with status 0 (nothing was sent).
 */
export function pathSegment(field: string, id: string): string {
  const problem = dotSegmentProblem(field, id);
  if (problem !== undefined) throw new MarketServiceError({ code: "invalid_request", status: 0, serviceMessage: problem, action: `a request naming ${field} ${JSON.stringify(id)}` });
  return encodeURIComponent(id);
}
