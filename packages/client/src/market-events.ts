/**
 * Live events of one market (docs/events.md), for Node 20 and browsers alike: `fetch` streaming,
 * TextDecoder and AbortSignal, nothing else. The stream is read with fetch rather than EventSource,
 * which cannot send an Authorization header.
 *
 * Each (re)connection asks `headers()` for its credentials (a bearer token, refreshed as needed,
 * or HMAC headers signed over the request's `pathAndQuery`). The subscription resumes after the
 * last sequence it saw, so a reconnect (after a network error, a server restart, an overflow or an
 * `event: end`) delivers no event twice and skips none; the server's `resumeAfter` and the stream's
 * opening `id` keep that true even before the first event. Failed connections are retried with a
 * bounded exponential backoff; a refusal that retrying cannot change (400, 401, 403, 404) ends the
 * subscription with a MarketServiceError (the SDK's one error class, service-error.ts), as does
 * giving up (its code is the last failure's). A 401 is the exception when the credentials can be
 * renewed (`renewCredentials`: a session signs in again, as a command does after a 401): the
 * subscription then reconnects at once, and ends only if the renewed credentials are refused too.
 */
import { pathSegment } from "./path-segment.js";
import { MarketServiceError, type MarketServiceErrorCode } from "./service-error.js";
import { SseParser, type ServerSentEvent } from "./sse-parser.js";
import { STREAM_END_CODES, type CreatorMarketEvent, type PublicMarketEvent, type StreamEndCode, type StreamEndFrameData } from "./wire/index.js";

/** One request the subscription makes, for credentials that sign it. */
export interface MarketEventsRequest {
  readonly method: "GET";
  /** Path plus query, as an HMAC signature covers it. */
  readonly pathAndQuery: string;
  readonly url: string;
}

export interface MarketEventsBackoff {
  /** Delay before the first retry (default 250 ms); it doubles with every failure in a row ... */
  initialDelayMs?: number;
  /** ... up to this (default 10 s) ... */
  maxDelayMs?: number;
  /** ... and the subscription gives up after this many failed connections in a row (default 10). */
  maxAttempts?: number;
}

/**
 * An event as the server sent it: the record's envelope (spec §6.1) for the market's creator, its
 * public view (docs/events.md) for others; each a union discriminated by `type`, with that type's
 * `data` (wire/event.ts, the declarations the service builds both views with). `isCreatorEvent`
 * tells the two views apart.
 */
export type MarketEventEnvelope = CreatorMarketEvent | PublicMarketEvent;

export interface MarketStreamEvent {
  readonly sequence: number;
  readonly event: MarketEventEnvelope;
}

export interface MarketEventsOptions {
  /** The service's base URL, e.g. `https://markets.example`. */
  baseUrl: string;
  marketId: string;
  /** Credentials for each connection (called again for every reconnect). */
  headers: (request: MarketEventsRequest) => Record<string, string> | Promise<Record<string, string>>;
  fetch?: typeof fetch;
  /**
   * Called when the service refuses the credentials (401):
   * drop them and return true when the next `headers()` call brings new ones. Default: none, and a
   * 401 ends the subscription.
   */
  renewCredentials?: () => boolean;
  /** Start after this sequence (0: from the market's first event); default: live only. */
  after?: number;
  signal?: AbortSignal;
  backoff?: MarketEventsBackoff;
  /** How the subscription waits between attempts (tests inject their own time). */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Called for each event instead of iterating; `subscription.finished` settles when it stops. */
  onEvent?: (event: MarketStreamEvent) => void | Promise<void>;
  /**
   * Told before each reconnect, with why (`code`: the service's, an `event: end` frame's such as
   * `shutting_down` or `owner_changed`, or `unreachable`; `reason` in words) and from where.
   */
  onReconnect?: (info: MarketEventsReconnect) => void;
}

/** What `onReconnect` is told before each reconnect. */
export interface MarketEventsReconnect {
  /** Failures in a row so far (0: a reconnect at once, after an overflow, an owner change or renewed credentials). */
  readonly attempt: number;
  readonly delayMs: number;
  readonly reason: string;
  readonly code: MarketServiceErrorCode;
  /** The sequence the reconnection resumes after. */
  readonly after: number | undefined;
}

export interface MarketEventSubscription extends AsyncIterableIterator<MarketStreamEvent> {
  /** The last sequence the subscription has seen everything up to (undefined before the first connection). */
  readonly lastSequence: number | undefined;
  /** With `onEvent`: settles when the subscription stops (rejects with its MarketServiceError). */
  readonly finished: Promise<void>;
  /** Stops the subscription. */
  close(): void;
}

/** Statuses a later attempt may get past: overload, unavailability, a proxy between. */
const RETRIED_STATUSES: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504]);
/** `event: end` / overflow codes after which the subscription reconnects at once (others: after the backoff's delay). */
const IMMEDIATE_RESUME_CODES: ReadonlySet<StreamEndCode> = new Set(["subscriber_too_slow", "owner_changed", "resume_required"]);

/** How a stream ended, by its `end` / `overflow` frame. */
interface StreamEnding {
  /** The frame's code; `unexpected_reply` for one no end frame carries (a later service's). */
  readonly code: StreamEndCode | "unexpected_reply";
  /** The frame's code and message, in words. */
  readonly reason: string;
}

function defaultSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) {
      resolve();
      return;
    }
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

function sequenceOf(text: string): number | undefined {
  if (!/^(0|[1-9][0-9]{0,15})$/.test(text)) return undefined;
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : undefined;
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Subscribes to a market's live events: iterate the result, or pass `onEvent`. A market id no URL
 * can name (`.`, `..`) throws MarketServiceError `invalid_request` (status 0) before anything is sent.
 */
export function subscribeMarketEvents(options: MarketEventsOptions): MarketEventSubscription {
  const marketSegment = pathSegment("marketId", options.marketId);
  const control = new AbortController();
  const outer = options.signal;
  const abort = () => control.abort();
  if (outer?.aborted === true) control.abort();
  else outer?.addEventListener("abort", abort, { once: true });
  const state = { after: options.after };
  const events = run(options, marketSegment, state, control.signal);
  const stop = () => {
    outer?.removeEventListener("abort", abort);
    control.abort();
  };
  const iterator: AsyncIterableIterator<MarketStreamEvent> = {
    next: () => events.next(),
    return: async () => {
      stop();
      return events.return(undefined);
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
  let finished: Promise<void> = Promise.resolve();
  if (options.onEvent !== undefined) {
    const onEvent = options.onEvent;
    finished = (async () => {
      try {
        for await (const event of iterator) await onEvent(event);
      } finally {
        stop();
      }
    })();
  }
  // A getter, defined (Object.assign would copy its value once).
  const subscription = Object.defineProperty(Object.assign(iterator, { finished, close: stop }), "lastSequence", { get: () => state.after, enumerable: true });
  return subscription as MarketEventSubscription;
}

async function* run(options: MarketEventsOptions, marketSegment: string, state: { after: number | undefined }, signal: AbortSignal): AsyncGenerator<MarketStreamEvent, void, undefined> {
  const fetchFn = options.fetch ?? globalThis.fetch.bind(globalThis);
  const sleep = options.sleep ?? defaultSleep;
  const initialDelayMs = options.backoff?.initialDelayMs ?? 250;
  const maxDelayMs = options.backoff?.maxDelayMs ?? 10_000;
  const maxAttempts = options.backoff?.maxAttempts ?? 10;
  const base = options.baseUrl.replace(/\/+$/, "");
  let failures = 0;
  /** Credentials were renewed after a 401 and have not connected since: another 401 is final. */
  let renewed = false;
  let reason = "";
  /** Why the last connection failed or ended: for onReconnect, and the error of a subscription that gives up. */
  let last: { code: MarketServiceErrorCode; status: number } = { code: "unreachable", status: 0 };
  /** The last stream ended cleanly with a reason to come back at once (overflow, owner change). */
  let resumeNow = false;
  /** After a refusal of the credentials: renew them once and reconnect at once, if they can be. */
  const renew = (): boolean => {
    if (renewed || options.renewCredentials?.() !== true) return false;
    renewed = true;
    resumeNow = true;
    return true;
  };
  for (;;) {
    if (signal.aborted) return;
    if (resumeNow) {
      resumeNow = false;
      options.onReconnect?.({ attempt: 0, delayMs: 0, reason, code: last.code, after: state.after });
    } else if (reason !== "") {
      failures += 1;
      if (failures > maxAttempts) {
        const message = `gave up after ${maxAttempts} failed attempts in a row: ${reason}`;
        throw new MarketServiceError({ code: last.code, status: last.status, serviceMessage: message, action: `GET /v1/markets/${marketSegment}/events`, message: `GET /v1/markets/${marketSegment}/events ${message}` });
      }
      const delayMs = Math.min(maxDelayMs, initialDelayMs * 2 ** (failures - 1));
      options.onReconnect?.({ attempt: failures, delayMs, reason, code: last.code, after: state.after });
      await sleep(delayMs, signal);
      if (signal.aborted) return;
    }
    const pathAndQuery = `/v1/markets/${marketSegment}/events${state.after === undefined ? "" : `?after=${state.after}`}`;
    const action = `GET ${pathAndQuery}`;
    const url = base + pathAndQuery;
    let headers: Record<string, string>;
    try {
      headers = await options.headers({ method: "GET", pathAndQuery, url });
    } catch (error) {
      if (signal.aborted) return;
      // A sign-in the service refused (or credentials that cannot sign) is a refusal, not a lost
      // connection: retrying it as "could not connect" would only repeat the same refusal. Only an
      // unreachable sign-in is retried as one; anything not from the SDK is a bug of the caller's.
      if (!(error instanceof MarketServiceError)) throw error;
      reason = `could not get credentials: ${error.code}: ${error.serviceMessage}`;
      last = { code: error.code, status: error.status };
      if (error.code !== "unreachable" && !RETRIED_STATUSES.has(error.status)) throw error;
      continue;
    }
    let response: Response;
    try {
      response = await fetchFn(url, { method: "GET", headers: { accept: "text/event-stream", ...headers }, signal });
    } catch (error) {
      if (signal.aborted) return;
      reason = `could not connect: ${error instanceof Error ? error.message : String(error)}`;
      last = { code: "unreachable", status: 0 };
      continue;
    }
    if (response.status !== 200 || response.body === null) {
      const text = await response.text().catch(() => "");
      const refusal = MarketServiceError.fromReply(action, response.status, response.headers, text);
      reason = `${response.status} ${refusal.code}: ${refusal.serviceMessage}`;
      last = { code: refusal.code, status: refusal.status };
      if (response.status === 401 && renew()) continue;
      if (!RETRIED_STATUSES.has(response.status)) throw refusal;
      continue;
    }
    // Connected: failures in a row start over, and a later 401 may renew the credentials again.
    failures = 0;
    renewed = false;
    reason = "the stream ended without a reason (the connection was cut)";
    last = { code: "unreachable", status: 0 };
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    const parser = new SseParser();
    try {
      for (;;) {
        let chunk: Awaited<ReturnType<typeof reader.read>>;
        try {
          chunk = await reader.read();
        } catch (error) {
          if (signal.aborted) return;
          reason = `the stream failed: ${error instanceof Error ? error.message : String(error)}`;
          last = { code: "unreachable", status: 0 };
          break;
        }
        if (chunk.done) break;
        const outcome = yield* handleFrames(parser.push(decoder.decode(chunk.value, { stream: true })), state);
        if (outcome !== undefined) {
          // Every end code says "resume" (StreamEndCode); refusals that end a subscription come as
          // HTTP replies when it reconnects. A code this client does not know is still a reason to
          // resume, after the backoff's delay.
          reason = outcome.reason;
          last = { code: outcome.code, status: 0 };
          resumeNow = outcome.code !== "unexpected_reply" && IMMEDIATE_RESUME_CODES.has(outcome.code);
          break;
        }
      }
    } finally {
      await reader.cancel().catch(() => undefined);
    }
  }
}

/** Yields the market events among `frames`; returns how the stream ended, if a frame said. */
function* handleFrames(frames: readonly ServerSentEvent[], state: { after: number | undefined }): Generator<MarketStreamEvent, StreamEnding | undefined, undefined> {
  for (const frame of frames) {
    switch (frame.event) {
      case "market-event": {
        const sequence = sequenceOf(frame.lastEventId);
        const event = parseObject(frame.data);
        if (sequence === undefined || event === undefined) continue;
        if (state.after !== undefined && sequence <= state.after) continue; // seen before a reconnect
        state.after = sequence;
        // The service's JSON, typed by its declarations as every typed reply of the client is.
        yield { sequence, event: event as unknown as MarketEventEnvelope };
        continue;
      }
      case "open": {
        const sequence = sequenceOf(frame.lastEventId);
        if (sequence !== undefined && (state.after === undefined || sequence > state.after)) state.after = sequence;
        continue;
      }
      case "overflow":
      case "end": {
        // The service's StreamEndFrameData, each member checked before use.
        const data: { readonly [K in keyof StreamEndFrameData]?: unknown } = parseObject(frame.data) ?? {};
        const { code, message, resumeAfter } = data;
        if (typeof resumeAfter === "number" && Number.isSafeInteger(resumeAfter) && (state.after === undefined || resumeAfter > state.after)) state.after = resumeAfter;
        const sent = typeof code === "string" ? code : frame.event;
        return {
          code: (STREAM_END_CODES as readonly string[]).includes(sent) ? (sent as StreamEndCode) : "unexpected_reply",
          reason: `${sent}: ${typeof message === "string" ? message : `the stream ended (${frame.event})`}`,
        };
      }
      default:
        continue;
    }
  }
  return undefined;
}
