/**
 * The contract between the HTTP layer and route handlers: what a handler receives and returns.
 */
import type { RequestHeaders } from "./headers.js";

export type HttpMethod = "GET" | "POST";

/** Everything a handler may know about a request; all of it copied, so it outlives the uWS request. */
export interface HttpRequestContext {
  readonly method: HttpMethod;
  /** Path plus query exactly as received (`/v1/markets/a%2Fb?x=1`): what HMAC signatures cover. */
  readonly url: string;
  /** The path as received, still percent-encoded. */
  readonly path: string;
  /** The raw query string without '?', "" when there is none. */
  readonly query: string;
  /** Percent-decoded path parameters by name (`params.marketId`). */
  readonly params: Readonly<Record<string, string>>;
  readonly headers: RequestHeaders;
  /** The exact bytes received (empty for GET). A view: it may not start at offset 0 of its buffer. */
  readonly bodyBytes: Buffer;
  /** Echoed incoming `x-request-id` when sane, else generated; on the response and in every log. */
  readonly requestId: string;
  /** The route pattern that matched, for logs and metrics (`/v1/markets/:marketId/publish`). */
  readonly route: string;
}

/** A reply whose body the server serialises with JSON.stringify. */
export interface JsonReply {
  status: number;
  body: unknown;
  headers?: Readonly<Record<string, string>>;
}

/** A reply already serialised as JSON text, for hot paths that cache or build their bytes. */
export interface SerializedReply {
  status: number;
  json: string | Buffer;
  headers?: Readonly<Record<string, string>>;
}

/**
 * A reply streamed from a web `ReadableStream` (the MCP endpoint's Streamable HTTP responses, which
 * may be server-sent events). Chunks are written as they come, pausing under backpressure;
 * `onDone` runs once the stream ended, failed or the client went away.
 */
export interface StreamReply {
  status: number;
  /** e.g. `application/json` or `text/event-stream`. */
  contentType: string;
  stream: ReadableStream<Uint8Array>;
  headers?: Readonly<Record<string, string>>;
  onDone?: () => void;
}

/**
 * A reply that is not JSON: the bytes of a static file (the live page, gateway/page/) with its own
 * content type and caching rule. Every other reply is `no-store` JSON.
 */
export interface StaticReply {
  status: number;
  /** e.g. `text/html; charset=utf-8`. */
  contentType: string;
  /** e.g. `no-cache`, or `public, max-age=31536000, immutable` for a content-hashed file name. */
  cacheControl: string;
  bytes: Buffer;
  headers?: Readonly<Record<string, string>>;
}

/**
 * A reply that keeps its response open and is written to for as long as the handler's stream lasts
 * (the live market events, gateway/events/). The server writes the status line and headers, then
 * hands `open` the response as an OpenStream; if the client left before that, `cancel` runs instead.
 */
export interface OpenStreamReply {
  status: 200;
  /** e.g. `text/event-stream`. */
  contentType: string;
  openStream: (stream: OpenStream) => void;
  cancel: () => void;
  /** None: the server writes the head of an open stream. */
  headers?: undefined;
}

/**
 * An open response (exchange.ts implements it over uWS): text written as it comes, each write in
 * its own cork. `write` returns false when the socket did not take everything: uWS keeps the rest
 * and `onWritable` runs once it can take more. uWS does not drain what it keeps by itself while an
 * `onWritable` handler is registered, so the handler must write (something) each time it runs.
 */
export interface OpenStream {
  write(text: string): boolean;
  /** Ends the response (after `text`, if given). */
  end(text?: string): void;
  /** True once ended or once the client went away: nothing may be written any more. */
  readonly closed: boolean;
  /** Runs once when the client goes away (never after `end`). */
  onClose(hook: () => void): void;
  onWritable(handler: () => void): void;
}

export type HttpReply = JsonReply | SerializedReply | StreamReply | OpenStreamReply | StaticReply;

/**
 * What the server reports once per request: after its reply reached the socket, or once it is
 * known that no reply did (the client left, or uWS dropped the connection with the reply).
 */
export interface ResponseInfo {
  requestId: string;
  method: string;
  /** The route pattern (`/v1/markets/:marketId/publish`), "-" when no route matched. */
  route: string;
  /** The status the client got; 0 when it got none. */
  status: number;
  durationMs: number;
  /** No reply reached the client: it went away first, or the connection was dropped with it. */
  aborted: boolean;
  /** A reply that was written but dropped with its connection by uWS (docs/http.md): its status. */
  droppedStatus?: number;
}

export type ResponseObserver = (info: ResponseInfo) => void;

/**
 * A route handler. It may return the reply directly (answered in the same tick, no promise) or a
 * promise of it. Error replies: throw `HttpError` (see `fail`); anything else thrown or rejected
 * becomes a logged 500 `internal_error`.
 */
export type HttpHandler = (request: HttpRequestContext) => Promise<HttpReply> | HttpReply;

export interface HttpRoute {
  method: HttpMethod;
  /** uWS pattern: static segments and `:name` parameters, e.g. `/v1/markets/:marketId/publish`. */
  pattern: string;
  handler: HttpHandler;
  /** Body limit for this route; default is the server's `maxBodyBytes` (1 MiB). */
  maxBodyBytes?: number;
}
