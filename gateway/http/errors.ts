/**
 * Error replies (spec §7): the body `{"error":{"code","message"}}`, the code → HTTP status table
 * and the error handlers throw to reply with one. docs/errors.md is the human-readable copy of the
 * table; test/http/errors.test.ts keeps the two in step.
 */
import { SERVICE_ERROR_CODES, type ErrorBody, type ServiceErrorCode as ErrorCode } from "@market-service/client/wire";

/**
 * The spec's codes (§7.1), plus the service's one extension: `service_unavailable` (503 with
 * Retry-After) while the service starts or stops, before any command can be taken (docs/errors.md).
 * Both, and the error body, are declared with the other wire shapes in @market-service/client.
 */
export { SERVICE_ERROR_CODES, type ErrorBody, type ErrorCode };

export type ErrorStatus = 400 | 401 | 403 | 404 | 405 | 409 | 422 | 500 | 503;

/** Spec §5: the one message an authentication failure carries, whatever failed. */
export const AUTHENTICATION_FAILED_MESSAGE = "request authentication failed";
/** An internal failure never reveals internals; the details go to the log under the request id. */
export const INTERNAL_ERROR_MESSAGE = "internal error";

/**
 * Every code's status. `delegation_not_found` is listed with its default (403: a command cited a
 * delegation as `authorityRef` that does not exist, which is an authority failure); the revoke
 * endpoint, where the delegation is the target resource, passes `{ delegationNotFound: 404 }`.
 * `Record<ErrorCode, …>` makes the compiler reject a missing or unknown code.
 */
const STATUS_BY_CODE: Readonly<Record<ErrorCode, ErrorStatus>> = {
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

/** Where an error arose, for the codes whose status depends on it. */
export interface ErrorStatusContext {
  /** 403 when a market or commitment command cites the delegation (default); 404 on revoke. */
  delegationNotFound?: 403 | 404;
}

export function statusForErrorCode(code: ErrorCode, context?: ErrorStatusContext): ErrorStatus {
  if (code === "delegation_not_found" && context?.delegationNotFound !== undefined) {
    return context.delegationNotFound;
  }
  return STATUS_BY_CODE[code];
}

/**
 * The body for an error. Two codes have fixed messages whatever the caller passes: authentication
 * failures must not tell an attacker which check failed, and internal errors must not leak internals.
 */
export function errorBody(code: ErrorCode, message: string): ErrorBody {
  return { error: { code, message: clientMessage(code, message) } };
}

export function clientMessage(code: ErrorCode, message: string): string {
  if (code === "unauthenticated") return AUTHENTICATION_FAILED_MESSAGE;
  if (code === "internal_error") return INTERNAL_ERROR_MESSAGE;
  return message;
}

/**
 * Thrown by handlers (directly or through `fail`) to reply with an error. The server turns it into
 * `status` + `errorBody(code, message)`; anything else thrown becomes a logged 500.
 */
export class HttpError extends Error {
  override name = "HttpError";
  readonly code: ErrorCode;
  readonly status: ErrorStatus;

  constructor(code: ErrorCode, message: string, context?: ErrorStatusContext) {
    super(clientMessage(code, message));
    this.code = code;
    this.status = statusForErrorCode(code, context);
  }
}

/** Throws an `HttpError`; `never` lets handlers write `if (!ok) fail(...)` as a guard. */
export function fail(code: ErrorCode, message: string, context?: ErrorStatusContext): never {
  throw new HttpError(code, message, context);
}
