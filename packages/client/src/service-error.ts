/**
 * The one error class of the client SDK: the service answered with an error body (spec §7), or with
 * something that is not one. It carries the spec's `code`, the HTTP status, the service's message and
 * the request id (the `x-request-id` response header, which names the request in the service's log),
 * so a report from a client can be joined with the server's log line.
 *
 * A guard per code (`errorGuards.capacity_exhausted(error)`), built from one list: the wire's
 * ERROR_CODES (spec §7.1) plus the service's one extension, `service_unavailable` (docs/errors.md).
 */
import { SERVICE_ERROR_CODES, type ServiceErrorCode } from "./wire/index.js";

/** Every code a reply of the service may carry (wire/errors.ts): the spec's 25, then `service_unavailable`. */
export { SERVICE_ERROR_CODES, type ServiceErrorCode };

/** The response header that names the request in the service's log (gateway/http/request-id.ts). */
export const REQUEST_ID_HEADER = "x-request-id";

export class MarketServiceError extends Error {
  override readonly name = "MarketServiceError";
  /**
   * The command's id when a command method threw this (set by MarketClient): send the command again
   * with it to learn its outcome without doing it twice.
   */
  commandId: string | undefined = undefined;
  constructor(
    /** The spec's code; undefined when the reply was not a spec error body (a proxy's page, say). */
    readonly code: ServiceErrorCode | undefined,
    /** The HTTP status of the reply; 0 when the client refused the request before sending it. */
    readonly status: number,
    /** The service's message (or the start of the body when it was not an error body). */
    readonly serviceMessage: string,
    /** The `x-request-id` the service answered with, if any. */
    readonly requestId: string | undefined,
    /** What the client was doing, e.g. `POST /v1/markets`. */
    readonly action: string,
  ) {
    super(
      status === 0
        ? `${action} was not sent: ${code ?? "refused"}: ${serviceMessage}`
        : `${action} failed: ${status}${code === undefined ? "" : ` ${code}`}: ${serviceMessage}${requestId === undefined ? "" : ` (request id ${requestId})`}`,
    );
  }

  /** The error of a non-success reply: its body's code and message when it is a spec error body. */
  static fromReply(action: string, status: number, headers: Headers, text: string): MarketServiceError {
    const error = errorBodyOf(text);
    const known = error !== undefined && (SERVICE_ERROR_CODES as readonly string[]).includes(error.code) ? (error.code as ServiceErrorCode) : undefined;
    const message = error?.message ?? (text.length > 200 ? `${text.slice(0, 200)}…` : text);
    return new MarketServiceError(known, status, message, headers.get(REQUEST_ID_HEADER) ?? undefined, action);
  }

  /** True when this error carries `code`. */
  is<Code extends ServiceErrorCode>(code: Code): this is MarketServiceError & { readonly code: Code } {
    return this.code === code;
  }
}

function errorBodyOf(text: string): { code: string; message: string } | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  const error = typeof parsed === "object" && parsed !== null ? (parsed as { error?: unknown }).error : undefined;
  if (typeof error !== "object" || error === null) return undefined;
  const { code, message } = error as { code?: unknown; message?: unknown };
  return typeof code === "string" && typeof message === "string" ? { code, message } : undefined;
}

/** A guard that tells whether any thrown value is a MarketServiceError with one code. */
export type ErrorGuard<Code extends ServiceErrorCode> = (error: unknown) => error is MarketServiceError & { readonly code: Code };

/** One guard per code: `errorGuards.capacity_exhausted(error)`. */
export const errorGuards: { readonly [Code in ServiceErrorCode]: ErrorGuard<Code> } = Object.freeze(
  Object.fromEntries(SERVICE_ERROR_CODES.map((code) => [code, (error: unknown) => error instanceof MarketServiceError && error.code === code])),
) as { readonly [Code in ServiceErrorCode]: ErrorGuard<Code> };

/** Any MarketServiceError, or one with `code`. */
export function isMarketServiceError(error: unknown): error is MarketServiceError;
export function isMarketServiceError<Code extends ServiceErrorCode>(error: unknown, code: Code): error is MarketServiceError & { readonly code: Code };
export function isMarketServiceError(error: unknown, code?: ServiceErrorCode): boolean {
  return error instanceof MarketServiceError && (code === undefined || error.code === code);
}
