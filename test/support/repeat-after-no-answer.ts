/**
 * A fetch that sends a request again when it got no HTTP answer at all, if sending it twice cannot
 * do anything twice: what the SDK's typed calls do (docs/client.md, "Retries"; decisions.md I37) and
 * what RFC 9110 §9.2.2 lets any client do, given to the test harnesses whose raw exchanges must still
 * see every status as it is (a 503 or a 429 is returned, never retried here).
 *
 * Why tests need it: uWS closes a connection whose answer is still pending about 11 s after the
 * request (docs/http.md, "HTTP/1.1 at the edge": the idle timer re-armed when paused reads resume).
 * On a machine whose cores other work keeps busy, an answer can take that long: the first record
 * read of a service starts a worker-pool thread, which in the in-process harnesses loads its
 * TypeScript through tsx. The client then sees "connection closed by the other side", as a real
 * client would, and a real client sends the request again.
 */
import { DEFAULT_RETRY } from "@market-service/client";
import { backoffMs } from "../../packages/client/src/retry-policy.js";

/** Attempts in all, the first included. */
const ATTEMPTS = 3;

/** Whether `init` may be sent again after no answer: a read, or a command carrying its commandId. */
export function readOrCommand(init: RequestInit | undefined): boolean {
  const method = (init?.method ?? "GET").toUpperCase();
  if (method === "GET" || method === "HEAD") return true;
  if (typeof init?.body !== "string") return false;
  try {
    const body: unknown = JSON.parse(init.body);
    return typeof body === "object" && body !== null && typeof (body as { commandId?: unknown }).commandId === "string";
  } catch {
    return false;
  }
}

/** `inner`, sending a request again (up to ATTEMPTS in all) when it threw without an answer and `mayRepeat` allows it. */
export function repeatAfterNoAnswer(inner: typeof fetch, mayRepeat: (init: RequestInit | undefined) => boolean): typeof fetch {
  return async (input, init) => {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await inner(input, init);
      } catch (error) {
        // fetch's own failure ("fetch failed", the socket's error as its cause) is a TypeError; an
        // abort or timeout the caller asked for, or a check of `inner` on the answer, is not.
        if (!(error instanceof TypeError) || attempt >= ATTEMPTS || !mayRepeat(init)) throw error;
        await new Promise((resolve) => setTimeout(resolve, backoffMs(DEFAULT_RETRY, attempt, Math.random)));
      }
    }
  };
}
