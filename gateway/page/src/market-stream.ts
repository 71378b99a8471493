/**
 * The page's one reader of a market's event stream (`GET /v1/markets/{id}/events`, Server-Sent
 * Events, docs/events.md): an async iterator of events that resumes after the last sequence it
 * delivered whenever the stream ends, overflows or the connection drops, and reports the
 * connection's state. Everything else on the page goes through `watchMarketEvents` only, so that
 * reading the stream by the SDK's `subscribeMarketEvents` instead is a change of this file alone.
 *
 * The token travels in the Authorization header only (never in the URL; EventSource cannot send
 * headers, which is why this reads the stream with fetch).
 */
import { type MarketEvent, parseMarketEvent } from "./market-view.js";

export type ConnectionStatus =
  | { state: "connecting" }
  | { state: "live" }
  | { state: "reconnecting"; reason: string }
  /** Given up: the service refused (its error code) or the stream was unreadable. */
  | { state: "error"; code: string; message: string };

export interface WatchOptions {
  marketId: string;
  token: string;
  /** Deliver events after this sequence (0: from the market's first event). */
  afterSequence: number;
  signal: AbortSignal;
  onStatus: (status: ConnectionStatus) => void;
}

/** Waits between reconnections, doubling from the first to the last. */
const RETRY_FIRST_MS = 250;
const RETRY_LAST_MS = 5_000;

/** A refusal the stream cannot recover from by reconnecting (bad token, unknown market, …). */
export class StreamRefused extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The market's events in order, each once, until `signal` aborts (then it returns) or the service
 * refuses the subscription (then it throws `StreamRefused`, after reporting the error status).
 */
export async function* watchMarketEvents(options: WatchOptions): AsyncGenerator<MarketEvent> {
  let after = options.afterSequence;
  let retryMs = RETRY_FIRST_MS;
  options.onStatus({ state: "connecting" });
  while (!options.signal.aborted) {
    let reason: string;
    try {
      const response = await fetch(`/v1/markets/${encodeURIComponent(options.marketId)}/events?after=${after}`, {
        headers: { authorization: `Bearer ${options.token}`, accept: "text/event-stream" },
        cache: "no-store",
        signal: options.signal,
      });
      if (!response.ok) {
        const refusal = await errorOf(response);
        if (!retryable(response.status)) {
          options.onStatus({ state: "error", code: refusal.code, message: refusal.message });
          throw new StreamRefused(refusal.code, refusal.message);
        }
        reason = `${refusal.code} (${response.status})`;
        retryMs = Math.max(retryMs, retryAfterMs(response) ?? 0);
      } else if (response.body === null) {
        reason = "the stream had no body";
      } else {
        options.onStatus({ state: "live" });
        retryMs = RETRY_FIRST_MS;
        const ending = { reason: "the stream ended" };
        for await (const frame of sseFrames(response.body, options.signal)) {
          if (frame.event === "market-event") {
            const event = readEvent(frame.data, options);
            if (event.sequence <= after) continue; // a repeat across a resume: delivered already
            after = event.sequence;
            yield event;
          } else if (frame.event === "overflow" || frame.event === "end") {
            ending.reason = `${frame.event}: ${codeOf(frame.data)}`;
          }
        }
        reason = ending.reason;
      }
    } catch (error) {
      if (options.signal.aborted || error instanceof StreamRefused) {
        if (error instanceof StreamRefused) throw error;
        return;
      }
      reason = "connection lost";
    }
    if (options.signal.aborted) return;
    options.onStatus({ state: "reconnecting", reason });
    await delay(retryMs, options.signal);
    retryMs = Math.min(RETRY_LAST_MS, retryMs * 2);
  }
}

/** One event's data line; an event the page cannot read is no connection problem (reconnecting would repeat it): it stops the stream. */
function readEvent(data: string, options: WatchOptions): MarketEvent {
  try {
    return parseMarketEvent(JSON.parse(data) as unknown);
  } catch (error) {
    const message = `an event could not be read: ${error instanceof Error ? error.message : String(error)}`;
    options.onStatus({ state: "error", code: "unreadable_event", message });
    throw new StreamRefused("unreadable_event", message);
  }
}

interface SseFrame {
  event: string;
  id: string | undefined;
  data: string;
}

/** Splits a text/event-stream body into frames (the SSE format: `field: value` lines, blank line ends a frame; `:` comments are keep-alives). */
async function* sseFrames(body: ReadableStream<Uint8Array>, signal: AbortSignal): AsyncGenerator<SseFrame> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const cancel = () => void reader.cancel().catch(() => undefined);
  signal.addEventListener("abort", cancel, { once: true });
  let buffered = "";
  let event = "message";
  let id: string | undefined;
  let data: string[] = [];
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffered += decoder.decode(value, { stream: true });
      let newline: number;
      while ((newline = buffered.search(/\r\n|\r|\n/)) >= 0) {
        // A CR at the end of what arrived may be the first half of a CRLF: wait for the next chunk.
        if (newline === buffered.length - 1 && buffered.endsWith("\r")) break;
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + (buffered.startsWith("\r\n", newline) ? 2 : 1));
        if (line === "") {
          if (data.length > 0) yield { event, id, data: data.join("\n") };
          event = "message";
          id = undefined;
          data = [];
          continue;
        }
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "event") event = value;
        else if (field === "data") data.push(value);
        else if (field === "id") id = value;
      }
    }
  } finally {
    signal.removeEventListener("abort", cancel);
    cancel();
  }
}

/** 429, 503 and the gateway's own 5xx are worth a retry; any other refusal will not change. */
function retryable(status: number): boolean {
  return status === 429 || status >= 500;
}

async function errorOf(response: Response): Promise<{ code: string; message: string }> {
  try {
    const body = (await response.json()) as { error?: { code?: unknown; message?: unknown } };
    const code = typeof body.error?.code === "string" ? body.error.code : `http_${response.status}`;
    const message = typeof body.error?.message === "string" ? body.error.message : `HTTP ${response.status}`;
    return { code, message };
  } catch {
    return { code: `http_${response.status}`, message: `HTTP ${response.status}` };
  }
}

function codeOf(data: string): string {
  try {
    const body = JSON.parse(data) as { code?: unknown };
    return typeof body.code === "string" ? body.code : "no code";
  } catch {
    return "no code";
  }
}

function retryAfterMs(response: Response): number | undefined {
  const seconds = Number(response.headers.get("retry-after"));
  return Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds * 1000, 60_000) : undefined;
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}
