/** Reply builders for handlers. */
import { errorBody, type ErrorCode, type ErrorStatusContext, statusForErrorCode } from "./errors.js";
import type { JsonReply } from "./route.js";

export function jsonReply(status: number, body: unknown, headers?: Readonly<Record<string, string>>): JsonReply {
  return headers === undefined ? { status, body } : { status, body, headers };
}

/**
 * An error reply without throwing, e.g. for an engine `Rejection` (`errorReply(r.code, r.message)`).
 * Same status table and message rules as `HttpError`.
 */
export function errorReply(code: ErrorCode, message: string, context?: ErrorStatusContext): JsonReply {
  return { status: statusForErrorCode(code, context), body: errorBody(code, message) };
}
