/** Spec §7.1: every error code a client can branch on. */
export type ErrorCode =
  | "invalid_request"
  | "unauthenticated"
  | "forbidden"
  | "identity_conflict"
  | "identity_not_found"
  | "delegation_not_found"
  | "delegation_conflict"
  | "delegation_inactive"
  | "not_found"
  | "method_not_allowed"
  | "idempotency_conflict"
  | "concurrent_update"
  | "internal_error"
  | "invalid_command"
  | "authority_reference_required"
  | "unknown_mechanism"
  | "invalid_mechanism_config"
  | "market_not_found"
  | "commitment_not_found"
  | "principal_not_authorized"
  | "version_conflict"
  | "invalid_market_transition"
  | "invalid_commitment_transition"
  | "actor_not_authorized"
  | "capacity_exhausted";

export const ERROR_CODES: readonly ErrorCode[] = [
  "invalid_request",
  "unauthenticated",
  "forbidden",
  "identity_conflict",
  "identity_not_found",
  "delegation_not_found",
  "delegation_conflict",
  "delegation_inactive",
  "not_found",
  "method_not_allowed",
  "idempotency_conflict",
  "concurrent_update",
  "internal_error",
  "invalid_command",
  "authority_reference_required",
  "unknown_mechanism",
  "invalid_mechanism_config",
  "market_not_found",
  "commitment_not_found",
  "principal_not_authorized",
  "version_conflict",
  "invalid_market_transition",
  "invalid_commitment_transition",
  "actor_not_authorized",
  "capacity_exhausted",
];

/**
 * Every code a reply may carry: the spec's (§7.1), plus the service's one extension,
 * `service_unavailable` (503 with Retry-After) while the service starts or stops, before any command
 * can be taken (docs/errors.md).
 */
export type ServiceErrorCode = ErrorCode | "service_unavailable";

/** Every code a reply may carry: the spec's, then the extension. */
export const SERVICE_ERROR_CODES: readonly ServiceErrorCode[] = [...ERROR_CODES, "service_unavailable"];

/** Spec §7: the body of every error response; a 503 while the service starts or stops carries `service_unavailable`. */
export interface ErrorBody {
  error: {
    code: ServiceErrorCode;
    message: string;
  };
}

/**
 * Why the service ends a market's event stream (docs/events.md): the `code` of an `event: overflow`
 * frame (`subscriber_too_slow`) or of an `event: end` frame. The client resumes after each.
 */
export type StreamEndCode =
  /** The subscriber did not read fast enough; it resumes after `resumeAfter`. */
  | "subscriber_too_slow"
  /** The service is stopping; resume (on another node, or once it is back). */
  | "shutting_down"
  /** In a cluster, the market's partition moved to another node; resume. */
  | "owner_changed"
  /** Events could not be followed without a possible gap (a cluster message lost); resume. */
  | "resume_required"
  /** The backlog could not be read now (e.g. 503 from the owner); resume later. */
  | "service_unavailable";

/** Every code that ends a stream, as the service sends them. */
export const STREAM_END_CODES: readonly StreamEndCode[] = ["subscriber_too_slow", "shutting_down", "owner_changed", "resume_required", "service_unavailable"];

/**
 * The JSON data of an `event: end` or `event: overflow` frame (docs/events.md): the service writes
 * it, the client reads it. Members in the order the service has always written them.
 */
export interface StreamEndFrameData {
  code: StreamEndCode;
  message: string;
  /** The last sequence handed to the subscriber's socket: resume after it. */
  resumeAfter: number;
}

/** A decided refusal: a code clients branch on and a deterministic human-readable message. */
export interface Rejection {
  code: ErrorCode;
  message: string;
}
