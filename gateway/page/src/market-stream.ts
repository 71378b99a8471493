/**
 * The page's one reader of a market's event stream: the SDK's `MarketClient.subscribe`
 * (@market-service/client, docs/client.md; `GET /v1/markets/{id}/events`, Server-Sent Events,
 * docs/events.md), which
 * resumes after the last sequence it delivered whenever the stream ends, overflows or the
 * connection drops. This module adds what the page shows of the connection: live once the service
 * answered a (re)connection, reconnecting (and why) in between, an error with the service's code
 * when retrying cannot help.
 *
 * The token travels in the Authorization header only (the SDK reads the stream with fetch, not
 * EventSource, which cannot send headers).
 */
import { MarketClient, MarketServiceError } from "@market-service/client";
import { type MarketEvent, parseMarketEvent } from "./market-view.js";

export type ConnectionStatus =
  | { state: "connecting" }
  | { state: "live" }
  | { state: "reconnecting"; reason: string }
  /** Given up: the service refused (its error code) or an event was unreadable. */
  | { state: "error"; code: string; message: string };

export interface WatchOptions {
  marketId: string;
  token: string;
  /** Deliver events after this sequence (0: from the market's first event). */
  afterSequence: number;
  signal: AbortSignal;
  onStatus: (status: ConnectionStatus) => void;
}

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
 * refuses the subscription (then it throws `StreamRefused`, after reporting the error status). A
 * page is left open for long: it keeps trying to reconnect, at most every 10 s, for as long as it is
 * open, rather than give up after the SDK's default number of attempts.
 */
export async function* watchMarketEvents(options: WatchOptions): AsyncGenerator<MarketEvent> {
  options.onStatus({ state: "connecting" });
  const client = new MarketClient({
    baseUrl: location.origin,
    credentials: { kind: "bearer", token: options.token },
    // The SDK tells of each reconnect; a 200 to a (re)connection is what makes the page live again.
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      if (response.ok && !options.signal.aborted) options.onStatus({ state: "live" });
      return response;
    },
  });
  const subscription = client.subscribe(options.marketId, {
    after: options.afterSequence,
    signal: options.signal,
    backoff: { maxAttempts: Number.MAX_SAFE_INTEGER, maxDelayMs: 10_000 },
    onReconnect: ({ reason }) => options.onStatus({ state: "reconnecting", reason }),
  });
  try {
    for await (const { event } of subscription) yield readEvent(event, options);
  } catch (error) {
    if (options.signal.aborted) return;
    if (error instanceof MarketServiceError) {
      options.onStatus({ state: "error", code: error.code, message: error.serviceMessage });
      throw new StreamRefused(error.code, error.serviceMessage);
    }
    throw error;
  } finally {
    subscription.close();
  }
}

/** An event the page cannot read is no connection problem (reconnecting would repeat it): it stops the stream. */
function readEvent(event: unknown, options: WatchOptions): MarketEvent {
  try {
    return parseMarketEvent(event);
  } catch (error) {
    const message = `an event could not be read: ${error instanceof Error ? error.message : String(error)}`;
    options.onStatus({ state: "error", code: "unreadable_event", message });
    throw new StreamRefused("unreadable_event", message);
  }
}
