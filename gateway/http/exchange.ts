/**
 * One request/response pair on a uWS connection, and the only code that writes to `HttpResponse`.
 *
 * uWS rules this enforces (docs/http.md, "Crash-proofing"):
 * - `onAborted` is attached by the constructor, i.e. synchronously first thing in the uWS handler;
 * - after an abort `res` is never touched again (uWS throws, inside a callback that is fatal);
 * - at most one response is written;
 * - every write happens inside `res.cork` (one syscall per response, and no uWS warning when a
 *   reply is written after an await);
 * - nothing here throws: a failure while writing is logged and swallowed.
 *
 * It also reports each request once to the observer (access log, metrics) with what the client got:
 * a reply given while uWS still parses its read is reported at the end of the turn, or as lost when
 * uWS dropped the connection in that read (delivery.ts); and it pauses reading while its answer is
 * pending, resuming in the cork that writes the answer (paused-reads.ts).
 */
import type { DeliveryTracker, TrackedReply } from "./delivery.js";
import { errorBody, type ErrorCode, HttpError, INTERNAL_ERROR_MESSAGE, statusForErrorCode } from "./errors.js";
import { UnavailableError } from "../../engine/runtime/unavailable.js";
import { describeThrown, type LogFn, safeLog } from "./log.js";
import type { LoopTurn } from "./loop-turn.js";
import { NOT_PAUSED, type PausableReads, type PausedReads } from "./paused-reads.js";
import { REQUEST_ID_HEADER } from "./request-id.js";
import type { HttpReply, OpenStream, OpenStreamReply, ResponseInfo, ResponseObserver, StaticReply, StreamReply } from "./route.js";
import { statusLine } from "./status-line.js";
import type { HttpResponse } from "./uws.js";

const JSON_CONTENT_TYPE = "application/json";
/** Replies are per-caller and often private (market records): no cache may keep them. */
const CACHE_CONTROL = "no-store";
const INTERNAL_ERROR_JSON = JSON.stringify(errorBody("internal_error", INTERNAL_ERROR_MESSAGE));
/**
 * JSON bytes larger than this (a hot market's record: tens of MB) are sent in chunks of
 * STREAMED_CHUNK_BYTES as the socket takes them, instead of one `end`: ending a body of tens of MB
 * held this thread, and every claim with it, for one long turn; in chunks under backpressure the
 * work is spread over many event-loop turns.
 */
const STREAM_JSON_ABOVE_BYTES = 1024 * 1024;
const STREAMED_CHUNK_BYTES = 256 * 1024;

/** Headers a handler may not set: the server owns framing, content type and the request id. */
const RESERVED_REPLY_HEADERS: ReadonlySet<string> = new Set([
  "cache-control",
  "connection",
  "content-length",
  "content-type",
  "date",
  "transfer-encoding",
  REQUEST_ID_HEADER,
]);
const HEADER_NAME = /^[a-z0-9!#$%&'*+.^_`|~-]+$/;
/** Visible ASCII, space and tab; in particular no CR/LF (header injection). */
const HEADER_VALUE = /^[\t\x20-\x7e]*$/;

/** The content type and caching rule of a reply's body: JSON and no-store unless a static reply says otherwise. */
interface BodyMedia {
  readonly contentType: string;
  readonly cacheControl: string;
}
const JSON_MEDIA: BodyMedia = { contentType: JSON_CONTENT_TYPE, cacheControl: CACHE_CONTROL };

/** The per-server machinery every exchange of that server shares. */
export interface ExchangeContext {
  readonly log: LogFn;
  readonly observer: ResponseObserver | undefined;
  readonly turn: LoopTurn;
  readonly delivery: DeliveryTracker;
  readonly pausedReads: PausedReads;
}

export class Exchange implements TrackedReply, PausableReads {
  aborted = false;
  responded = false;
  requestId = "";
  /** The route pattern, for logs ("-" until a route is known). */
  route = "-";
  /** The peer's address, read only when the delivery tracker compares it (see `peer`). */
  private peerText: string | undefined;
  /** The event-loop turn the request arrived in (loop-turn.ts). */
  readonly turn: number;
  repliedInItsTurn = false;
  private readonly log: LogFn;
  /** Reading is paused until the answer is written (paused-reads.ts). */
  private paused = false;
  /** PausedReads's record of this exchange's pause. */
  pausedAtMs = NOT_PAUSED;
  pausedIndex = NOT_PAUSED;
  /** Answered 503 at its deadline (`answerLate`): the handler's own answer, when it comes, is dropped. */
  private answeredLate = false;
  /** Called once when the client goes away (before or during the reply). */
  private abortHooks: (() => void)[] | undefined;
  /** A reply written in the request's turn, whose report waits for the turn's end (delivery.ts). */
  private deferred: { status: number; durationMs: number } | undefined;
  /** A streaming write waiting for `onWritable`, woken by an abort instead. */
  private onAbortedOnce: (() => void) | undefined;
  /** The streaming write `onWritable` wakes next (see `writable`). */
  private writableWaiter: (() => void) | undefined;
  private writableRegistered = false;
  private readonly startedMs = performance.now();
  private reported = false;

  constructor(
    readonly res: HttpResponse,
    private readonly context: ExchangeContext,
    readonly method = "-",
  ) {
    this.log = context.log;
    res.onAborted(() => {
      this.aborted = true;
      if (this.paused) {
        this.paused = false;
        context.pausedReads.forget(this);
      }
      const wake = this.onAbortedOnce;
      this.onAbortedOnce = undefined;
      wake?.();
      const hooks = this.abortHooks;
      this.abortHooks = undefined;
      if (hooks !== undefined) for (const hook of hooks) hook();
      if (!this.responded) context.delivery.aborted(this);
      // A client gone before any reply: report it now (a streaming reply reports when it stops).
      if (!this.responded) this.report(0);
    });
    this.turn = context.turn.id;
    context.delivery.arrived(this);
  }

  /**
   * The peer's IP address as text (the proxy's, behind a proxy), for the delivery tracker
   * (delivery.ts), which compares it only for a request that just arrived and for one answered in
   * its own turn. Reading it costs a native call and a copy, so it is read only then: on arrival when
   * asked, and before a reply written in the request's turn (`res` may not be touched once answered
   * or aborted; a reply in a later turn never needs it, and reads "").
   */
  get peer(): string {
    if (this.peerText === undefined) this.peerText = this.responded || this.aborted ? "" : Buffer.from(this.res.getRemoteAddressAsText()).toString("latin1");
    return this.peerText;
  }

  /** A reply is about to be written: if it is in the request's own turn, the tracker may still ask for the peer. */
  private keepPeerForItsTurn(): void {
    if (this.turn === this.context.turn.id) void this.peer;
  }

  /** Runs `hook` when the client goes away (never after the reply was fully written). */
  onAbort(hook: () => void): void {
    (this.abortHooks ??= []).push(hook);
  }

  /**
   * Tell the observer about this request, exactly once. Never throws. A reply written in the
   * request's own turn may still be dropped with the connection (delivery.ts): its report waits.
   */
  private report(status: number): void {
    if (this.reported || this.deferred !== undefined) return;
    const durationMs = performance.now() - this.startedMs;
    if (status !== 0 && !this.aborted && this.turn === this.context.turn.id) {
      this.repliedInItsTurn = true;
      this.deferred = { status, durationMs };
      this.context.delivery.defer(this);
      return;
    }
    this.emit(status, durationMs, this.aborted, undefined);
  }

  /** delivery.ts: the reply given in the request's turn left with the read. */
  confirmDelivery(): void {
    const deferred = this.deferred;
    if (deferred !== undefined) this.emit(deferred.status, deferred.durationMs, false, undefined);
  }

  /** delivery.ts: uWS dropped the connection, and with it the reply, in the read that carried it. */
  reportLost(): void {
    const deferred = this.deferred;
    if (deferred === undefined) return;
    safeLog(this.log, "debug", "reply dropped with its connection", { requestId: this.requestId, route: this.route, status: deferred.status });
    this.emit(0, deferred.durationMs, true, deferred.status);
  }

  private emit(status: number, durationMs: number, aborted: boolean, droppedStatus: number | undefined): void {
    if (this.reported) return;
    this.reported = true;
    const observer = this.context.observer;
    if (observer === undefined) return;
    try {
      const info: ResponseInfo = { requestId: this.requestId, method: this.method, route: this.route, status, durationMs, aborted };
      if (droppedStatus !== undefined) info.droppedStatus = droppedStatus;
      observer(info);
    } catch (error) {
      safeLog(this.log, "error", "response observer failed", { requestId: this.requestId, error: describeThrown(error) });
    }
  }

  /** The request is complete and its answer will come later: pause reading (paused-reads.ts). */
  awaitAnswer(): void {
    if (this.open) this.context.pausedReads.pauseAtTurnEnd(this);
  }

  /** A reply after the request was answered: the handler's own, after `answerLate` (expected), or a second one (our bug). */
  private dropSecondReply(status: number): void {
    if (this.answeredLate) safeLog(this.log, "info", "answer after its deadline dropped", { requestId: this.requestId, route: this.route, status });
    else safeLog(this.log, "error", "second reply to one request dropped", { requestId: this.requestId, route: this.route, status });
  }

  /** paused-reads.ts: the answer is still pending at its deadline; uWS's idle timer would soon close the connection unanswered. */
  answerLate(deadlineMs: number): void {
    if (!this.open) return;
    safeLog(this.log, "warn", "no answer by the deadline: answered 503", { requestId: this.requestId, route: this.route, deadlineMs });
    this.answeredLate = true;
    this.writeThrown(new UnavailableError(`no answer within ${deadlineMs / 1000} s: the service is slow right now; retry shortly (a command retried with the same commandId is not done twice)`));
  }

  /** paused-reads.ts: stop reading this connection until the answer. */
  pauseReading(): void {
    if (!this.open || this.paused) return;
    try {
      this.res.pause();
      this.paused = true;
    } catch (error) {
      safeLog(this.log, "error", "pausing a connection failed", { requestId: this.requestId, error: describeThrown(error) });
    }
  }

  /** Resumes reading if paused: inside the cork that writes the answer, or when a pause lasted too
   * long (paused-reads.ts). uWS restores the events saved by `pause`, so never resume unpaused. */
  resumeReading(): void {
    if (!this.paused) return;
    this.paused = false;
    this.context.pausedReads.forget(this);
    if (this.aborted) return;
    this.res.resume();
  }

  /**
   * uWS will close the connection as soon as the handler returns (server.ts `awaitDrop`), dropping
   * anything written: write nothing, and let `onAborted` report the request. If the connection is
   * still open at the end of the turn, `fallback` answers after all.
   */
  awaitDrop(fallback: () => void): void {
    this.context.turn.atEnd(() => {
      if (this.open) fallback();
    });
  }

  /** Closes the connection without an answer (a refused body that would not end). */
  closeConnection(reason: string): void {
    if (!this.open) return;
    safeLog(this.log, "info", "connection closed without a reply", { requestId: this.requestId, route: this.route, reason });
    try {
      this.res.close(); // onAborted runs inside: the request is reported as aborted (status 0)
    } catch (error) {
      safeLog(this.log, "error", "closing a connection failed", { requestId: this.requestId, error: describeThrown(error) });
    }
  }

  /** True while a reply can still be written. */
  get open(): boolean {
    return !this.aborted && !this.responded;
  }

  /** Writes a final response. `closeConnection` makes uWS close after it (used when the request
   * body was not, or not entirely, read). */
  write(
    status: number,
    json: string | Buffer,
    headers: Readonly<Record<string, string>> | undefined,
    closeConnection: boolean,
    media: BodyMedia = JSON_MEDIA,
  ): void {
    if (this.aborted) {
      safeLog(this.log, "debug", "client went away before the reply", { requestId: this.requestId, route: this.route, status });
      this.report(status);
      return;
    }
    if (this.responded) {
      this.dropSecondReply(status);
      return;
    }
    const line = statusLine(status);
    if (line === undefined) {
      // Guarded by checkReply; a bad status here is our bug, answer 500 rather than a broken line.
      this.write(500, INTERNAL_ERROR_JSON, undefined, closeConnection);
      return;
    }
    this.keepPeerForItsTurn();
    this.responded = true;
    const res = this.res;
    const requestId = this.requestId;
    try {
      if (Buffer.isBuffer(json) && json.length > STREAM_JSON_ABOVE_BYTES && this.method !== "HEAD" && !closeConnection) {
        this.writeLargeBody(status, line, json, headers, media);
        return;
      }
      res.cork(() => {
        this.resumeReading();
        this.writeHead(line, headers, media);
        // A HEAD response has no content (RFC 9110 §9.3.2): sending the body would desynchronize a
        // keep-alive connection. uWS treats a reported length as a response still to be written (a
        // handler returning then aborts the process) and an explicit `undefined` as 2^63, so: no
        // arguments at all, or 0 when the connection closes anyway.
        if (this.method !== "HEAD") res.end(json, closeConnection);
        else if (closeConnection) res.endWithoutBody(0, true);
        else res.endWithoutBody();
      });
    } catch (error) {
      safeLog(this.log, "error", "writing a response failed", {
        requestId,
        route: this.route,
        status,
        error: describeThrown(error),
      });
    }
    this.report(status);
  }

  /** Status line and headers of a reply (call inside a cork). */
  private writeHead(line: string, headers: Readonly<Record<string, string>> | undefined, media: BodyMedia): void {
    const res = this.res;
    res.writeStatus(line);
    res.writeHeader("content-type", media.contentType);
    res.writeHeader("cache-control", media.cacheControl);
    res.writeHeader(REQUEST_ID_HEADER, this.requestId);
    if (headers !== undefined) {
      // Own keys only, the same ones checkReply validated.
      for (const name of Object.keys(headers)) {
        const value = headers[name];
        if (value !== undefined) res.writeHeader(name, value);
      }
    }
  }

  /**
   * A large body with its length, in chunks of STREAMED_CHUNK_BYTES through `tryEnd` (uWS's way to
   * send a known-size body: what the socket does not take is not buffered, and `onWritable` says
   * when to go on from `getWriteOffset()`). The caller has checked the status line.
   */
  private writeLargeBody(status: number, line: string, body: Buffer, headers: Readonly<Record<string, string>> | undefined, media: BodyMedia): void {
    this.responded = true;
    const res = this.res;
    const totalBytes = body.length;
    /** Writes until done (true) or backpressure (false); never touches `res` after the end or an abort. */
    const pump = (): boolean => {
      for (;;) {
        if (this.aborted) return true;
        const offset = res.getWriteOffset();
        let accepted = false;
        let done = false;
        res.cork(() => {
          [accepted, done] = res.tryEnd(body.subarray(offset, Math.min(totalBytes, offset + STREAMED_CHUNK_BYTES)), totalBytes);
        });
        if (done) {
          this.onAbortedOnce = undefined;
          this.report(status);
          return true;
        }
        if (!accepted) return false;
      }
    };
    // A client that leaves mid-body is reported then (as aborted); onWritable never fires again.
    this.onAbortedOnce = () => this.report(status);
    try {
      res.cork(() => {
        this.resumeReading();
        this.writeHead(line, headers, media);
      });
      if (!pump()) {
        res.onWritable(() => {
          try {
            pump();
          } catch (error) {
            safeLog(this.log, "error", "writing a response failed", { requestId: this.requestId, route: this.route, status, error: describeThrown(error) });
          }
          return true;
        });
      }
    } catch (error) {
      safeLog(this.log, "error", "writing a response failed", { requestId: this.requestId, route: this.route, status, error: describeThrown(error) });
      this.report(status);
    }
  }

  /** An error reply `{"error":{code,message}}` with the code's status. */
  writeError(
    code: ErrorCode,
    message: string,
    closeConnection = false,
    headers?: Readonly<Record<string, string>>,
  ): void {
    this.write(statusForErrorCode(code), JSON.stringify(errorBody(code, message)), headers, closeConnection);
  }

  /** The generic 500; the cause goes to the log under the request id, never to the client. */
  writeInternalError(thrown: unknown, where: string, closeConnection = false): void {
    safeLog(this.log, "error", where, { requestId: this.requestId, route: this.route, error: describeThrown(thrown) });
    this.write(500, INTERNAL_ERROR_JSON, undefined, closeConnection);
  }

  /** The head of a streamed or open reply (call inside a cork): status, content type, no caching, the request id. */
  private writeStreamHead(line: string, contentType: string, headers: Readonly<Record<string, string>> | undefined): void {
    this.resumeReading();
    this.res.writeStatus(line);
    this.res.writeHeader("content-type", contentType);
    this.res.writeHeader("cache-control", CACHE_CONTROL);
    this.res.writeHeader(REQUEST_ID_HEADER, this.requestId);
    for (const [name, value] of Object.entries(headers ?? {})) this.res.writeHeader(name, value);
  }

  /**
   * Streams a reply: headers once, then each chunk in its own cork; when uWS reports backpressure
   * (`write` returns false) wait for `onWritable` before the next chunk. Stops reading when the
   * client goes away. Never throws.
   */
  private async writeStream(reply: StreamReply): Promise<void> {
    const res = this.res;
    const reader = reply.stream.getReader();
    try {
      if (this.aborted) return;
      if (this.responded) {
        this.dropSecondReply(reply.status); // the stream is cancelled below, its onDone called
        return;
      }
      const line = statusLine(reply.status);
      if (line === undefined || !/^[\x20-\x7e]{1,200}$/.test(reply.contentType)) {
        this.writeInternalError(new Error("invalid stream reply"), "handler returned an invalid reply");
        return;
      }
      this.keepPeerForItsTurn();
      this.responded = true;
      res.cork(() => this.writeStreamHead(line, reply.contentType, reply.headers));
      for (;;) {
        const { done, value } = await reader.read();
        if (this.aborted) return;
        if (done) {
          res.cork(() => res.end());
          this.report(reply.status);
          return;
        }
        let accepted = true;
        res.cork(() => {
          accepted = res.write(value);
        });
        if (!accepted) await this.writable();
      }
    } catch (error) {
      safeLog(this.log, "error", "streaming a reply failed", { requestId: this.requestId, route: this.route, error: describeThrown(error) });
      if (!this.aborted) {
        try {
          res.close(); // headers are out: the only honest signal left is to cut the connection
        } catch {
          // already gone
        }
      }
    } finally {
      this.report(reply.status); // no-op when already reported at the end of the stream
      await reader.cancel().catch(() => undefined);
      try {
        reply.onDone?.();
      } catch (error) {
        safeLog(this.log, "error", "stream onDone failed", { requestId: this.requestId, error: describeThrown(error) });
      }
    }
  }

  /**
   * Resolves when uWS can take more bytes, or when the client went away. uWS's `onWritable` is
   * registered once per response and wakes whoever waits now: registering it again for a later wait
   * never fired in this uWS build, and a stream of chunks then stalled for good part-way (one
   * registration delivers it all).
   */
  private writable(): Promise<void> {
    return new Promise((resolve) => {
      if (this.aborted) {
        resolve();
        return;
      }
      this.onAbortedOnce = resolve;
      this.writableWaiter = resolve;
      if (this.writableRegistered) return;
      this.writableRegistered = true;
      this.res.onWritable(() => {
        const waiter = this.writableWaiter;
        this.writableWaiter = undefined;
        this.onAbortedOnce = undefined;
        waiter?.();
        return true;
      });
    });
  }

  /**
   * Opens a response that stays open (OpenStreamReply): the head and nothing else, then the handler
   * writes through the OpenStream. uWS re-arms its 10 s timer (the one that cuts idle and unanswered
   * connections) when reading resumes, and no successful write disarms it: an open response would
   * be cut about 10 s after its head (measured: docs/events.md). Pausing the socket again right
   * after the head disarms it; writes still go out (uWS polls the socket again when one has to
   * wait), and a client that left is noticed by the next write. Reading stays paused: a client
   * cannot send another request on a connection whose response never ends. This pause is not the
   * one paused-reads.ts bounds, which would resume it (and re-arm the timer) after a while.
   */
  private writeOpenStream(reply: OpenStreamReply): void {
    if (this.aborted || this.responded) {
      reply.cancel();
      return;
    }
    const line = statusLine(reply.status);
    if (line === undefined || !/^[\x20-\x7e]{1,200}$/.test(reply.contentType)) {
      reply.cancel();
      this.writeInternalError(new Error("invalid open stream reply"), "handler returned an invalid reply");
      return;
    }
    this.keepPeerForItsTurn();
    this.responded = true;
    const res = this.res;
    let ended = false;
    let closeHook: (() => void) | undefined;
    let writableHandler: (() => void) | undefined;
    const report = () => this.report(reply.status);
    // After the head, `responded` is true, so onAborted reports nothing itself: this hook does.
    this.onAbort(() => {
      report();
      if (ended) return;
      ended = true;
      const hook = closeHook;
      closeHook = undefined;
      if (hook !== undefined) this.guard("an open stream's close hook failed", hook);
    });
    const stream: OpenStream = {
      write: (text) => {
        if (ended || this.aborted) return false;
        let accepted = true;
        try {
          res.cork(() => {
            accepted = res.write(text);
          });
        } catch (error) {
          safeLog(this.log, "error", "writing an open stream failed", { requestId: this.requestId, route: this.route, error: describeThrown(error) });
          return false;
        }
        return accepted;
      },
      end: (text) => {
        if (ended || this.aborted) return;
        ended = true;
        closeHook = undefined;
        try {
          res.cork(() => {
            if (text !== undefined && text.length > 0) res.write(text);
            res.end();
          });
        } catch (error) {
          safeLog(this.log, "error", "ending an open stream failed", { requestId: this.requestId, route: this.route, error: describeThrown(error) });
        }
        report();
      },
      get closed() {
        return ended;
      },
      onClose: (hook) => {
        closeHook = hook;
      },
      onWritable: (handler) => {
        writableHandler = handler;
      },
    };
    try {
      res.cork(() => {
        this.writeStreamHead(line, reply.contentType, undefined);
        // The head goes out now (uWS sends headers with the first chunk of a chunked body).
        res.write(":\n\n");
        res.pause();
      });
      res.onWritable(() => {
        if (!ended && !this.aborted && writableHandler !== undefined) this.guard("an open stream's writable handler failed", writableHandler);
        return true;
      });
    } catch (error) {
      safeLog(this.log, "error", "opening a stream failed", { requestId: this.requestId, route: this.route, error: describeThrown(error) });
      ended = true;
      reply.cancel();
      return;
    }
    this.guard("opening a stream failed", () => reply.openStream(stream));
  }

  /** Runs a handler's callback; a throw is logged, never let out into a uWS callback. */
  private guard(what: string, callback: () => void): void {
    try {
      callback();
    } catch (error) {
      safeLog(this.log, "error", what, { requestId: this.requestId, route: this.route, error: describeThrown(error) });
    }
  }

  /** Sends what a handler returned, after checking it is a well-formed reply. */
  writeReply(reply: HttpReply): void {
    if (typeof reply === "object" && reply !== null && "openStream" in reply) {
      this.writeOpenStream(reply);
      return;
    }
    // A handler may return anything at run time: only a real object can be a stream reply.
    if (typeof reply === "object" && reply !== null && "stream" in reply) {
      const headerProblem = reply.headers === undefined ? undefined : checkReply({ status: reply.status, json: "", headers: reply.headers });
      if (headerProblem !== undefined) {
        void reply.stream.cancel().catch(() => undefined);
        reply.onDone?.();
        this.writeInternalError(new Error(headerProblem), "handler returned an invalid reply");
        return;
      }
      void this.writeStream(reply);
      return;
    }
    if (typeof reply === "object" && reply !== null && "bytes" in reply) {
      this.writeStatic(reply);
      return;
    }
    try {
      const problem = checkReply(reply);
      if (problem !== undefined) {
        this.writeInternalError(new Error(problem), "handler returned an invalid reply");
        return;
      }
      let json: string | Buffer;
      if ("json" in reply) {
        json = reply.json;
      } else {
        const serialised: unknown = JSON.stringify(reply.body);
        if (typeof serialised !== "string") {
          this.writeInternalError(new Error("reply body is not JSON-serialisable"), "handler returned an invalid reply");
          return;
        }
        json = serialised;
      }
      this.write(reply.status, json, reply.headers, false);
    } catch (error) {
      // JSON.stringify throws on cycles and BigInt; a getter on the reply may throw too.
      this.writeInternalError(error, "serialising a reply failed");
    }
  }

  /** A static file's bytes with its own content type and cache rule (checked like any reply). */
  private writeStatic(reply: StaticReply): void {
    try {
      const problem = checkReply({ status: reply.status, json: reply.bytes, ...(reply.headers === undefined ? {} : { headers: reply.headers }) });
      if (problem !== undefined) {
        this.writeInternalError(new Error(problem), "handler returned an invalid reply");
        return;
      }
      for (const [name, value] of [["content type", reply.contentType], ["cache-control", reply.cacheControl]] as const) {
        if (typeof value !== "string" || !/^[\x20-\x7e]{1,200}$/.test(value)) {
          this.writeInternalError(new Error(`static reply ${name} is invalid`), "handler returned an invalid reply");
          return;
        }
      }
      this.write(reply.status, reply.bytes, reply.headers, false, { contentType: reply.contentType, cacheControl: reply.cacheControl });
    } catch (error) {
      this.writeInternalError(error, "writing a static reply failed");
    }
  }

  /** Turns a handler's throw or rejection into a reply. */
  writeThrown(thrown: unknown): void {
    try {
      if (thrown instanceof HttpError) {
        this.write(thrown.status, JSON.stringify(errorBody(thrown.code, thrown.message)), undefined, false);
        return;
      }
      if (thrown instanceof UnavailableError) {
        const headers = { "retry-after": String(thrown.retryAfterSeconds) };
        this.write(503, JSON.stringify(errorBody("service_unavailable", thrown.message)), headers, false);
        return;
      }
    } catch (error) {
      // Only a pathological HttpError subclass (a throwing getter) gets here.
      this.writeInternalError(error, "serialising an error reply failed");
      return;
    }
    this.writeInternalError(thrown, "handler failed");
  }
}

/** Why `reply` is not a valid reply, or undefined. Handlers are ours, but a bad one must cost a
 * 500, not a malformed response or a header injected into the stream. */
export function checkReply(reply: unknown): string | undefined {
  if (typeof reply !== "object" || reply === null) return "reply is not an object";
  const { status, headers } = reply as { status?: unknown; headers?: unknown };
  if (typeof status !== "number" || !Number.isInteger(status) || statusLine(status) === undefined) {
    return `reply status ${String(status)} is not a known final HTTP status`;
  }
  if (status === 204 || status === 205 || status === 304) return `reply status ${status} cannot carry a JSON body`;
  if ("json" in reply) {
    const json = (reply as { json: unknown }).json;
    if (typeof json !== "string" && !Buffer.isBuffer(json)) return "reply json is neither a string nor a Buffer";
  } else if (!("body" in reply)) {
    return "reply has neither body nor json";
  }
  if (headers !== undefined) {
    if (typeof headers !== "object" || headers === null) return "reply headers is not an object";
    for (const [name, value] of Object.entries(headers)) {
      if (!HEADER_NAME.test(name)) return `reply header name ${JSON.stringify(name)} is not a lowercase token`;
      if (RESERVED_REPLY_HEADERS.has(name)) return `reply header ${name} is set by the server`;
      if (typeof value !== "string" || !HEADER_VALUE.test(value)) return `reply header ${name} has an invalid value`;
    }
  }
  return undefined;
}
