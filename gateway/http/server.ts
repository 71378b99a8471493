/**
 * The HTTP server: a uWS App with a route table, bounded body reading, strict error replies and
 * crash-proof dispatch. Request lifecycle and the rules behind it: docs/http.md.
 */
import { accessSync, constants as fsConstants } from "node:fs";
import { type BodyCallbacks, type DiscardBounds, describeBytes, readBody } from "./body.js";
import { DeliveryTracker } from "./delivery.js";
import { type ErrorCode } from "./errors.js";
import { Exchange, type ExchangeContext } from "./exchange.js";
import { copyRequestHeaders, type RequestHeaders } from "./headers.js";
import { describeThrown, type LogFn, safeLog } from "./log.js";
import { LoopTurn } from "./loop-turn.js";
import { PausedReads } from "./paused-reads.js";
import { compilePattern, type CompiledPattern, decodePathParam } from "./path-params.js";
import { REQUEST_ID_HEADER, requestIdFor } from "./request-id.js";
import type { HttpMethod, HttpReply, HttpRequestContext, HttpRoute, ResponseObserver } from "./route.js";
import {
  closeApp,
  closeListenSocket,
  createUwsApp,
  type HttpRequest,
  type HttpResponse,
  LISTEN_DEFAULT,
  LISTEN_EXCLUSIVE_PORT,
  listenOn,
  type TemplatedApp,
  type us_listen_socket,
} from "./uws.js";

export interface HttpLimits extends DiscardBounds {
  /** Default body limit per request (spec §4, §8: 1 MiB); a route may set its own. */
  maxBodyBytes: number;
  /** Sum of header name and value lengths; uWS itself drops connections above ~100 KiB. */
  maxHeaderBytes: number;
  /** Decoded length bound of a path parameter (generated ids reach 1024, docs/decisions.md D10). */
  maxPathParamChars: number;
  /**
   * A refused body (over its limit, or sent with a request refused before its body) is read to
   * its end and dropped, so that the client sees the answer (body.ts): at most this many bytes
   * after the refusal. A declared Content-Length above it is answered at once and closed.
   */
  maxDiscardBytes: number;
  /** ...and for at most this long after the refusal; past either bound the connection is closed
   * without an answer. */
  maxDiscardMs: number;
  /** Longest pause of a connection's reads while its answer is pending (paused-reads.ts). */
  maxPausedMs: number;
  /** An answer still pending this long after its request was complete is a 503 with Retry-After
   * (paused-reads.ts): uWS's idle timer would otherwise close the connection unanswered, at the
   * earliest 8 s after a pause ended; so less than `maxPausedMs` + 8 s. */
  maxAnswerMs: number;
}

export const DEFAULT_HTTP_LIMITS: Readonly<HttpLimits> = {
  maxBodyBytes: 1024 * 1024,
  maxHeaderBytes: 16 * 1024,
  maxPathParamChars: 1024,
  maxDiscardBytes: 64 * 1024 * 1024,
  maxDiscardMs: 30_000,
  maxPausedMs: 1_000,
  maxAnswerMs: 8_000,
};

/** No route may raise its body limit above this: a body is held whole in memory. */
export const MAX_ROUTE_BODY_BYTES = 64 * 1024 * 1024;

export interface HttpServerOptions {
  routes: readonly HttpRoute[];
  log: LogFn;
  /** Both or neither: with them the server is an SSLApp (TLS). */
  tlsCertFile?: string;
  tlsKeyFile?: string;
  tlsPassphrase?: string;
  limits?: Partial<HttpLimits>;
  /**
   * Listen without SO_REUSEPORT (default true): a second instance on the same port then fails to
   * start instead of silently sharing traffic. Worker threads sharing one port pass false.
   */
  exclusivePort?: boolean;
  /** Called once per request after its reply (request logs, metrics). */
  onResponse?: ResponseObserver;
}

export interface HttpServer {
  /** Binds and resolves with the actual port (pass 0 for any free port). */
  listen(host: string, port: number): Promise<number>;
  /** Stops accepting connections; requests in flight (and open keep-alive connections) continue. */
  stopListening(): void;
  /** Requests received and not yet reported (answered, lost or aborted). */
  readonly inFlight: number;
  /** Connections whose reads are paused while their answer is pending (paused-reads.ts). */
  readonly pausedConnections: number;
  /** Closes the listen socket and every connection; in-flight replies are dropped. Idempotent. */
  close(): void;
  readonly app: TemplatedApp;
}

const EMPTY_BODY = Buffer.alloc(0);
/**
 * The Content-Length values uWS accepts: 1 to 9 digits. For anything else it closes the connection
 * right after the request handler returns, dropping whatever that handler wrote.
 */
const UWS_CONTENT_LENGTH = /^[0-9]{1,9}$/;

/** How the request's body is framed, as uWS will read it. */
type BodyFraming =
  | { readonly kind: "none" }
  | { readonly kind: "length"; readonly bytes: number }
  | { readonly kind: "chunked" }
  /** A Content-Length uWS refuses: it closes the connection once the handler returns. */
  | { readonly kind: "dropped" };

const NO_BODY: BodyFraming = { kind: "none" };
const CHUNKED: BodyFraming = { kind: "chunked" };
const DROPPED: BodyFraming = { kind: "dropped" };

/** uWS's own rules (HttpParser.h, v20.43): any Transfer-Encoding means chunked, else a non-empty
 * Content-Length frames the body; a request with both never reaches a handler. */
function framingOf(contentLength: string, transferEncoding: string): BodyFraming {
  if (transferEncoding !== "") return CHUNKED;
  if (contentLength === "") return NO_BODY;
  if (!UWS_CONTENT_LENGTH.test(contentLength)) return DROPPED;
  const bytes = Number(contentLength);
  return bytes === 0 ? NO_BODY : { kind: "length", bytes };
}

interface PreparedRoute {
  readonly method: HttpMethod;
  readonly compiled: CompiledPattern;
  readonly handler: HttpRoute["handler"];
  readonly maxBodyBytes: number;
}

export function createHttpServer(options: HttpServerOptions): HttpServer {
  const limits: HttpLimits = { ...DEFAULT_HTTP_LIMITS, ...definedOnly(options.limits ?? {}) };
  checkLimits(limits);
  const log = options.log;
  const tls = tlsFiles(options);
  const routes = prepareRoutes(options.routes, limits);
  const app = createUwsApp(tls);
  // Every request passes through an Exchange; counting them here gives the in-flight count the
  // graceful drain waits on, and feeds the caller's observer.
  let inFlight = 0;
  const observer: ResponseObserver = (info) => {
    inFlight -= 1;
    options.onResponse?.(info);
  };
  const turn = new LoopTurn((error) => safeLog(log, "error", "end-of-turn task failed", { error: describeThrown(error) }));
  const pausedReads = new PausedReads(turn, limits.maxPausedMs, limits.maxAnswerMs);
  const context: ExchangeContext = { log, observer, turn, delivery: new DeliveryTracker(turn), pausedReads };
  const exchangeFor = (res: HttpResponse, method: string): Exchange => {
    inFlight += 1;
    return new Exchange(res, context, method);
  };

  // Method handlers first, then per-pattern `any` (405), then the catch-all (404): uWS prefers a
  // method match over `any` for one pattern, and a longer pattern over the wildcard.
  // Keyed by shape: `/a/:x` (GET) and `/a/:y` (POST) are one uWS path and share one 405 handler.
  const allowedByShape = new Map<string, { pattern: string; methods: HttpMethod[] }>();
  for (const route of routes) {
    const uwsHandler = (res: HttpResponse, req: HttpRequest): void => handleRoute(exchangeFor(res, route.method), req, route, limits);
    if (route.method === "GET") app.get(route.compiled.pattern, uwsHandler);
    else app.post(route.compiled.pattern, uwsHandler);
    const entry = allowedByShape.get(route.compiled.shape) ?? { pattern: route.compiled.pattern, methods: [] };
    entry.methods.push(route.method);
    allowedByShape.set(route.compiled.shape, entry);
  }
  for (const { pattern, methods } of allowedByShape.values()) {
    const allow = methods.join(", ");
    app.any(pattern, (res, req) =>
      handleUnrouted(exchangeFor(res, req.getMethod().toUpperCase()), req, limits, "method_not_allowed", `method ${req.getMethod().toUpperCase()} is not allowed here`, allow),
    );
  }
  app.any("/*", (res, req) => handleUnrouted(exchangeFor(res, req.getMethod().toUpperCase()), req, limits, "not_found", "no such route", undefined));

  let listening = false;
  let closed = false;
  let listenSocket: us_listen_socket | undefined;
  return {
    app,
    get inFlight() {
      return inFlight;
    },
    get pausedConnections() {
      return pausedReads.size;
    },
    stopListening(): void {
      if (listenSocket === undefined) return;
      closeListenSocket(listenSocket);
      listenSocket = undefined;
    },
    async listen(host: string, port: number): Promise<number> {
      if (listening || closed) throw new Error("listen may be called once, before close");
      if (!(Number.isInteger(port) && port >= 0 && port <= 65535)) throw new RangeError(`bad port ${port}`);
      listening = true;
      if (tls === undefined && !isLoopbackHost(host)) {
        safeLog(log, "warn", "serving plain HTTP on a non-loopback address; the spec requires TLS (§5.3)", { host, port });
      }
      const bound = await listenOn(app, host, port, options.exclusivePort === false ? LISTEN_DEFAULT : LISTEN_EXCLUSIVE_PORT);
      listenSocket = bound.socket;
      safeLog(log, "info", "http server listening", { host, port: bound.port, tls: tls !== undefined });
      return bound.port;
    },
    close(): void {
      if (closed) return;
      closed = true;
      closeApp(app);
    },
  };
}

// ---- per request ----

/**
 * The uWS handler of a route. Everything runs inside try/catch: a throw escaping a uWS handler
 * aborts the process. `new Exchange` attaches `onAborted` before anything else can fail.
 */
function handleRoute(exchange: Exchange, req: HttpRequest, route: PreparedRoute, limits: HttpLimits): void {
  try {
    exchange.route = route.compiled.pattern;
    // Copy everything out of `req` now: it is invalid after this function returns.
    const path = req.getUrl();
    const query = rawQuery(req);
    const copied = copyRequestHeaders(req, limits.maxHeaderBytes);
    exchange.requestId = requestIdFor(copied.ok ? (copied.headers.get(REQUEST_ID_HEADER) ?? "") : req.getHeader(REQUEST_ID_HEADER));
    const framing = framingOf(req.getHeader("content-length"), req.getHeader("transfer-encoding"));
    if (framing.kind === "dropped") return awaitDrop(exchange);
    if (!copied.ok) return refuse(exchange, framing, limits, "invalid_request", copied.message);
    const headers = copied.headers;
    const params: Record<string, string> = {};
    const names = route.compiled.paramNames;
    for (let i = 0; i < names.length; i++) {
      const name = names[i] as string;
      const decoded = decodePathParam(name, req.getParameter(i), limits.maxPathParamChars);
      if (!decoded.ok) return refuse(exchange, framing, limits, "not_found", decoded.message);
      params[name] = decoded.value;
    }
    const makeContext = (bodyBytes: Buffer): HttpRequestContext => ({
      method: route.method,
      url: query === undefined ? path : `${path}?${query}`,
      path,
      query: query ?? "",
      params,
      headers,
      bodyBytes,
      requestId: exchange.requestId,
      route: route.compiled.pattern,
    });

    if (route.method === "GET") {
      // A GET body would be ignored yet could be signed over; refuse it rather than guess.
      if (hasBody(headers)) return refuse(exchange, framing, limits, "invalid_request", "a GET request must not have a body");
      if (invoke(route, makeContext(EMPTY_BODY), exchange)) exchange.awaitAnswer();
      return;
    }

    // An empty Content-Length is no body to uWS, but not a valid header (RFC 9112 §6.3).
    if (headers.get("content-length") === "") return exchange.writeError("invalid_request", "invalid Content-Length", true);
    // A declared length (0 included) is checked against what arrives; a chunked body has none.
    const declaredBytes = framing.kind === "length" ? framing.bytes : framing.kind === "none" && headers.has("content-length") ? 0 : undefined;
    if (declaredBytes !== undefined && declaredBytes > route.maxBodyBytes) {
      return refuse(exchange, framing, limits, "invalid_request", `request body exceeds ${describeBytes(route.maxBodyBytes)}`);
    }
    readBody(exchange, route.maxBodyBytes, declaredBytes, limits, new RoutedBody(exchange, route, makeContext));
  } catch (error) {
    exchange.writeInternalError(error, "request dispatch failed", true);
  }
}

/** What becomes of a routed request's body (body.ts): one object per request, not a closure per outcome. */
class RoutedBody implements BodyCallbacks {
  constructor(
    private readonly exchange: Exchange,
    private readonly route: PreparedRoute,
    private readonly contextOf: (bodyBytes: Buffer) => HttpRequestContext,
  ) {}

  onBody(bytes: Buffer): void {
    // The body is complete: if the answer waits on the event loop, pause reading until then.
    if (invoke(this.route, this.contextOf(bytes), this.exchange)) this.exchange.awaitAnswer();
  }

  onRefused(message: string): void {
    this.exchange.writeError("invalid_request", message, true);
  }

  onAbandoned(reason: string): void {
    this.exchange.closeConnection(reason);
  }

  onFailure(thrown: unknown): void {
    this.exchange.writeInternalError(thrown, "reading the request body failed", true);
  }
}

/**
 * Runs a handler; whatever it does (return, throw, resolve, reject), exactly one reply follows.
 * Returns true when the reply is still to come (the handler returned a promise).
 */
function invoke(route: PreparedRoute, context: HttpRequestContext, exchange: Exchange): boolean {
  let result: Promise<HttpReply> | HttpReply;
  try {
    result = route.handler(context);
  } catch (error) {
    exchange.writeThrown(error);
    return false;
  }
  if (isThenable(result)) {
    // Both callbacks never throw (Exchange methods catch everything), so the promise this
    // returns cannot reject unhandled.
    result.then(
      (reply) => exchange.writeReply(reply),
      (error: unknown) => exchange.writeThrown(error),
    );
    return true;
  }
  exchange.writeReply(result);
  return false;
}

/** 404 and 405, answered without running a route (after reading and dropping any body). */
function handleUnrouted(
  exchange: Exchange,
  req: HttpRequest,
  limits: HttpLimits,
  code: "not_found" | "method_not_allowed",
  message: string,
  allow: string | undefined,
): void {
  try {
    exchange.requestId = requestIdFor(req.getHeader(REQUEST_ID_HEADER));
    const framing = framingOf(req.getHeader("content-length"), req.getHeader("transfer-encoding"));
    if (framing.kind === "dropped") return awaitDrop(exchange);
    refuse(exchange, framing, limits, code, message, allow === undefined ? undefined : { allow });
  } catch (error) {
    exchange.writeInternalError(error, "request dispatch failed", true);
  }
}

/**
 * Refuses a request before its body. A body is read to its end and dropped first (body.ts), then
 * the answer goes out and the connection is closed: a client still sending when the server answers
 * and closes gets a reset instead of the answer, and unread bytes are never parsed as a request.
 * A declared length above `maxDiscardBytes` is not worth reading: answered at once, and closed.
 */
function refuse(
  exchange: Exchange,
  framing: BodyFraming,
  limits: HttpLimits,
  code: ErrorCode,
  message: string,
  headers?: Readonly<Record<string, string>>,
): void {
  if (framing.kind === "none") return exchange.writeError(code, message, false, headers);
  if (framing.kind === "dropped" || (framing.kind === "length" && framing.bytes > limits.maxDiscardBytes)) {
    return exchange.writeError(code, message, true, headers);
  }
  const answer = (): void => exchange.writeError(code, message, true, headers);
  readBody(
    exchange,
    0,
    framing.kind === "length" ? framing.bytes : undefined,
    limits,
    {
      onBody: answer,
      onRefused: answer,
      onAbandoned: (reason) => exchange.closeConnection(reason),
      onFailure: (thrown) => exchange.writeInternalError(thrown, "reading the request body failed", true),
    },
    message,
  );
}

/**
 * A Content-Length uWS refuses (not 1–9 digits): uWS closes the connection as soon as this handler
 * returns, and drops anything written before. So nothing is written; `onAborted` reports the request
 * as aborted. Should uWS not close after all, the 400 goes out at the end of the turn.
 */
function awaitDrop(exchange: Exchange): void {
  exchange.awaitDrop(() => exchange.writeError("invalid_request", "invalid Content-Length", true));
}


// ---- helpers ----

/** uWS returns undefined (despite its typings) when the target has no '?'. */
function rawQuery(req: HttpRequest): string | undefined {
  return req.getQuery() as string | undefined;
}

function hasBody(headers: RequestHeaders): boolean {
  const contentLength = headers.get("content-length");
  return (contentLength !== undefined && contentLength !== "0") || headers.has("transfer-encoding");
}

function isThenable(value: unknown): value is PromiseLike<HttpReply> {
  return typeof value === "object" && value !== null && typeof (value as { then?: unknown }).then === "function";
}

export function isLoopbackHost(host: string): boolean {
  return host === "localhost" || host === "::1" || host === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

function definedOnly(partial: Partial<HttpLimits>): Partial<HttpLimits> {
  const out: Partial<HttpLimits> = {};
  if (partial.maxBodyBytes !== undefined) out.maxBodyBytes = partial.maxBodyBytes;
  if (partial.maxHeaderBytes !== undefined) out.maxHeaderBytes = partial.maxHeaderBytes;
  if (partial.maxPathParamChars !== undefined) out.maxPathParamChars = partial.maxPathParamChars;
  if (partial.maxDiscardBytes !== undefined) out.maxDiscardBytes = partial.maxDiscardBytes;
  if (partial.maxDiscardMs !== undefined) out.maxDiscardMs = partial.maxDiscardMs;
  if (partial.maxPausedMs !== undefined) out.maxPausedMs = partial.maxPausedMs;
  if (partial.maxAnswerMs !== undefined) out.maxAnswerMs = partial.maxAnswerMs;
  return out;
}

function checkLimits(limits: HttpLimits): void {
  assertIntegerIn("maxBodyBytes", limits.maxBodyBytes, 0, MAX_ROUTE_BODY_BYTES);
  assertIntegerIn("maxHeaderBytes", limits.maxHeaderBytes, 256, 1024 * 1024);
  assertIntegerIn("maxPathParamChars", limits.maxPathParamChars, 1, 64 * 1024);
  assertIntegerIn("maxDiscardBytes", limits.maxDiscardBytes, 0, 1024 * 1024 * 1024);
  assertIntegerIn("maxDiscardMs", limits.maxDiscardMs, 1, 3_600_000);
  assertIntegerIn("maxPausedMs", limits.maxPausedMs, 1, 3_600_000);
  // uWS's idle timer, re-armed when a pause ends, closes the connection 8 s later at the earliest: a
  // deadline from then on would never be met (the default leaves a second to spare).
  assertIntegerIn("maxAnswerMs", limits.maxAnswerMs, limits.maxPausedMs + 1, limits.maxPausedMs + 7_999);
}

function assertIntegerIn(name: string, value: number, min: number, max: number): void {
  if (!(Number.isSafeInteger(value) && value >= min && value <= max)) {
    throw new RangeError(`${name} must be an integer in [${min}, ${max}], got ${value}`);
  }
}

function tlsFiles(options: HttpServerOptions): { certFile: string; keyFile: string; passphrase?: string } | undefined {
  const { tlsCertFile: certFile, tlsKeyFile: keyFile, tlsPassphrase: passphrase } = options;
  if (certFile === undefined && keyFile === undefined) return undefined;
  if (certFile === undefined || keyFile === undefined) throw new Error("TLS needs both tlsCertFile and tlsKeyFile");
  // uWS only says "App construction failed"; name the file instead.
  for (const file of [certFile, keyFile]) {
    try {
      accessSync(file, fsConstants.R_OK);
    } catch (error) {
      throw new Error(`TLS file ${file} is not readable: ${describeThrown(error).split("\n")[0]}`);
    }
  }
  return passphrase === undefined ? { certFile, keyFile } : { certFile, keyFile, passphrase };
}

function prepareRoutes(routes: readonly HttpRoute[], limits: HttpLimits): PreparedRoute[] {
  if (routes.length === 0) throw new Error("the route table is empty");
  const seen = new Map<string, string>();
  return routes.map((route) => {
    if (route.method !== "GET" && route.method !== "POST") throw new Error(`unsupported method ${String(route.method)}`);
    if (typeof route.handler !== "function") throw new Error(`route ${route.method} ${route.pattern} has no handler`);
    const compiled = compilePattern(route.pattern);
    // `/a/:x` and `/a/:y` are one uWS route; two handlers for it would silently shadow each other.
    const key = `${route.method} ${compiled.shape}`;
    const previous = seen.get(key);
    if (previous !== undefined) throw new Error(`routes ${previous} and ${route.pattern} (${route.method}) collide`);
    seen.set(key, route.pattern);
    const maxBodyBytes = route.maxBodyBytes ?? limits.maxBodyBytes;
    assertIntegerIn(`maxBodyBytes of ${route.pattern}`, maxBodyBytes, 0, MAX_ROUTE_BODY_BYTES);
    return { method: route.method, compiled, handler: route.handler, maxBodyBytes };
  });
}
