/**
 * The one error class of the client SDK (docs/client.md, "Errors"): every failure the SDK reports
 * is a MarketServiceError whose `code` is one closed union, so a caller branches on one field of one
 * class. The codes: what a reply of the service may carry (the spec's, and `service_unavailable`),
 * what ends a market's event stream (an `event: end` or `overflow` frame), and the two the client
 * itself decides: `unreachable` (no HTTP answer at all) and `unexpected_reply` (an answer that is
 * not a reply of this service, e.g. a proxy's page, or a code this client does not know).
 *
 * A command method's error carries the command's id (`commandId`), so the caller can send the
 * command again with it and learn its outcome without doing it twice. A guard per code
 * (`errorGuards.capacity_exhausted(error)`), built from one list.
 */
import { SERVICE_ERROR_CODES, STREAM_END_CODES, type ServiceErrorCode, type StreamEndCode } from "./wire/index.js";

/** Every code a reply of the service may carry (wire/errors.ts): the spec's 25, then `service_unavailable`. */
export { SERVICE_ERROR_CODES, type ServiceErrorCode };

/** The codes the client decides itself: no HTTP answer, or an answer that is no reply of the service. */
export type ClientErrorCode = "unreachable" | "unexpected_reply";

/** Every `code` a MarketServiceError may carry: the service's, the event stream's, the client's. */
export type MarketServiceErrorCode = ServiceErrorCode | StreamEndCode | ClientErrorCode;

/** Every MarketServiceErrorCode once: the service's codes, then the stream's others, then the client's. */
export const MARKET_SERVICE_ERROR_CODES: readonly MarketServiceErrorCode[] = [...new Set<MarketServiceErrorCode>([...SERVICE_ERROR_CODES, ...STREAM_END_CODES, "unreachable", "unexpected_reply"])];

/** The response header that names the request in the service's log (gateway/http/request-id.ts). */
export const REQUEST_ID_HEADER = "x-request-id";

/** What a MarketServiceError is made of. */
export interface MarketServiceErrorInit {
  readonly code: MarketServiceErrorCode;
  /** The HTTP status of the reply; 0 when there was none (not sent, no answer, a stream's end frame). */
  readonly status: number;
  /** The service's message; for the client's codes, what the client saw. */
  readonly serviceMessage: string;
  /** What the client was doing, e.g. `POST /v1/markets`. */
  readonly action: string;
  readonly requestId?: string | undefined;
  readonly commandId?: string | undefined;
  readonly causeCode?: string | undefined;
  readonly lasting?: boolean | undefined;
  /** The whole message, when the one made of the fields above does not fit. */
  readonly message?: string | undefined;
}

export class MarketServiceError extends Error {
  override readonly name = "MarketServiceError";
  readonly code: MarketServiceErrorCode;
  /** The HTTP status of the reply; 0 when there was none: refused before sending, no answer, or a stream's end frame. */
  readonly status: number;
  /** The service's message (or the start of the body when it was not an error body; for `unreachable`, what failed). */
  readonly serviceMessage: string;
  /** What the client was doing, e.g. `POST /v1/markets`. */
  readonly action: string;
  /** The `x-request-id` the service answered with, if any: it names the request in the service's log. */
  readonly requestId: string | undefined;
  /**
   * The command's id when a command method threw this: send the command again with it to learn its
   * outcome without doing it twice. Undefined for every other call.
   */
  readonly commandId: string | undefined;
  /** `unreachable` only: the network error's code (`ECONNREFUSED`, `ENOTFOUND`, `timeout`, …), if one was found. */
  readonly causeCode: string | undefined;
  /** `unreachable` only: trying again soon cannot help (host not found, a TLS mismatch), so the client did not retry. */
  readonly lasting: boolean;

  constructor(init: MarketServiceErrorInit) {
    super(init.message ?? defaultMessage(init));
    this.code = init.code;
    this.status = init.status;
    this.serviceMessage = init.serviceMessage;
    this.action = init.action;
    this.requestId = init.requestId;
    this.commandId = init.commandId;
    this.causeCode = init.causeCode;
    this.lasting = init.lasting ?? false;
  }

  /** The error of a non-success reply: its body's code and message when it is a spec error body. */
  static fromReply(action: string, status: number, headers: Headers, text: string): MarketServiceError {
    const error = errorBodyOf(text);
    const code = error === undefined ? undefined : serviceErrorCodeOf(error.code);
    const message = error?.message ?? (text.length > 200 ? `${text.slice(0, 200)}…` : text);
    return new MarketServiceError({
      code: code ?? "unexpected_reply",
      status,
      serviceMessage: error !== undefined && code === undefined ? `${error.code}: ${message}` : message,
      requestId: headers.get(REQUEST_ID_HEADER) ?? undefined,
      action,
    });
  }

  /**
   * This error as a command method throws it: with the command's id. A copy, not a change: one
   * error may reach several calls (concurrent requests share one sign-in), each with its own id.
   */
  forCommand(commandId: string): MarketServiceError {
    if (this.commandId === commandId) return this;
    const { code, status, serviceMessage, action, requestId, causeCode, lasting, message } = this;
    const copy = new MarketServiceError({ code, status, serviceMessage, action, requestId, causeCode, lasting, message, commandId });
    if (this.stack !== undefined) copy.stack = this.stack;
    return copy;
  }

  /** True when this error carries `code`. */
  is<Code extends MarketServiceErrorCode>(code: Code): this is MarketServiceError & { readonly code: Code } {
    return this.code === code;
  }
}

function defaultMessage(init: MarketServiceErrorInit): string {
  const { action, status, code, serviceMessage, requestId } = init;
  if (status === 0) return `${action} was not sent: ${code}: ${serviceMessage}`;
  return `${action} failed: ${status} ${code}: ${serviceMessage}${requestId === undefined ? "" : ` (request id ${requestId})`}`;
}

/** `code` when it is one a reply of the service may carry. */
export function serviceErrorCodeOf(code: string): ServiceErrorCode | undefined {
  return (SERVICE_ERROR_CODES as readonly string[]).includes(code) ? (code as ServiceErrorCode) : undefined;
}

/** `code` when it is one a MarketServiceError may carry. */
export function marketServiceErrorCodeOf(code: string): MarketServiceErrorCode | undefined {
  return (MARKET_SERVICE_ERROR_CODES as readonly string[]).includes(code) ? (code as MarketServiceErrorCode) : undefined;
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
export type ErrorGuard<Code extends MarketServiceErrorCode> = (error: unknown) => error is MarketServiceError & { readonly code: Code };

/** One guard per code: `errorGuards.capacity_exhausted(error)`, `errorGuards.unreachable(error)`. */
export const errorGuards: { readonly [Code in MarketServiceErrorCode]: ErrorGuard<Code> } = Object.freeze(
  Object.fromEntries(MARKET_SERVICE_ERROR_CODES.map((code) => [code, (error: unknown) => error instanceof MarketServiceError && error.code === code])),
) as { readonly [Code in MarketServiceErrorCode]: ErrorGuard<Code> };

/** Any MarketServiceError (for one code: `errorGuards[code](error)`, or `error.is(code)` once narrowed). */
export function isMarketServiceError(error: unknown): error is MarketServiceError {
  return error instanceof MarketServiceError;
}
