/**
 * A test's view of one live event stream, read with a real fetch: the HTTP status and headers, every
 * frame parsed (with the client's own parser), the raw text (for what must never appear in it), and
 * waits on real frames with a bounded timeout.
 */
import type { Credentials } from "@market-service/client";
import { authorizationHeaders } from "../../../packages/client/src/credentials.js";
import { SseParser, type ServerSentEvent } from "../../../packages/client/src/sse-parser.js";

export interface OpenOptions {
  after?: number | string;
  lastEventId?: string;
  headers?: Record<string, string>;
}

/** The request headers that carry `credentials` for a GET of `pathAndQuery` (the SDK's own signer). */
export function credentialHeaders(credentials: Credentials, pathAndQuery: string): Promise<Record<string, string>> {
  const noTokens = (): never => {
    throw new Error("the event stream tests pass bearer or HMAC credentials, not an Ed25519 session");
  };
  return authorizationHeaders(credentials, { method: "GET", pathAndQuery, body: undefined }, noTokens, Date.now());
}

export function eventsPath(marketId: string, after?: number | string): string {
  return `/v1/markets/${encodeURIComponent(marketId)}/events${after === undefined ? "" : `?after=${after}`}`;
}

export class EventStream {
  readonly frames: ServerSentEvent[] = [];
  raw = "";
  ended = false;
  failed: unknown;
  private readonly parser = new SseParser();
  private readonly waiters = new Set<() => void>();
  private constructor(
    readonly response: Response,
    private readonly control: AbortController,
  ) {}

  /** Opens the stream; a non-200 reply is returned as is (its body unread). */
  static async open(baseUrl: string, marketId: string, credentials: Credentials, options: OpenOptions = {}): Promise<EventStream> {
    const pathAndQuery = eventsPath(marketId, options.after);
    const headers: Record<string, string> = { accept: "text/event-stream", ...(await credentialHeaders(credentials, pathAndQuery)), ...options.headers };
    if (options.lastEventId !== undefined) headers["last-event-id"] = options.lastEventId;
    const control = new AbortController();
    const response = await fetch(baseUrl + pathAndQuery, { headers, signal: control.signal });
    const stream = new EventStream(response, control);
    if (response.status === 200 && response.body !== null) void stream.pump(response.body);
    return stream;
  }

  private async pump(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    const reader = body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        const text = decoder.decode(value, { stream: true });
        this.raw += text;
        this.frames.push(...this.parser.push(text));
        this.wake();
      }
    } catch (error) {
      this.failed = error;
    }
    this.ended = true;
    this.wake();
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }

  /** The market events received so far, parsed. */
  get events(): Array<{ sequence: number; event: Record<string, unknown> }> {
    return this.frames.filter((frame) => frame.event === "market-event").map((frame) => ({ sequence: Number(frame.lastEventId), event: JSON.parse(frame.data) as Record<string, unknown> }));
  }

  /** Resolves once `condition` holds, or rejects after `timeoutMs` with what arrived. */
  waitFor(condition: (stream: EventStream) => boolean, what: string, timeoutMs = 60_000): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (condition(this)) {
          clearTimeout(timer);
          this.waiters.delete(check);
          resolve();
        } else if (this.ended && !condition(this)) {
          clearTimeout(timer);
          this.waiters.delete(check);
          reject(new Error(`the stream ended before ${what}; received:\n${this.raw.slice(-2000)}`));
        }
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`timed out waiting for ${what}; received:\n${this.raw.slice(-2000)}`));
      }, timeoutMs);
      this.waiters.add(check);
      check();
    });
  }

  /** Waits until the market events received reach `sequence`. */
  untilSequence(sequence: number, timeoutMs?: number): Promise<void> {
    return this.waitFor((stream) => stream.events.some((event) => event.sequence >= sequence), `event ${sequence}`, timeoutMs);
  }

  close(): void {
    this.control.abort();
  }
}
