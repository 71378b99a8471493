/**
 * Reading a request body from uWS, bounded.
 *
 * - uWS reuses (neuters) each chunk's ArrayBuffer when the callback returns, so every chunk is
 *   copied before returning.
 * - With a Content-Length the body goes straight into one preallocated buffer (no concatenation);
 *   a chunked body collects its chunks.
 * - A body that breaks a limit (over the route's limit, longer or shorter than its Content-Length)
 *   is not refused at once: the rest is read and dropped without copying, and the refusal is
 *   answered when the last chunk arrived. A client that is still sending when the server answers
 *   and closes gets a reset on its write, and fetch/undici then report a network error instead of
 *   the status (docs/http.md, "Request lifecycle"). Discarding is bounded in bytes and time
 *   (`DiscardBounds`); past either bound the connection is closed without an answer.
 */
import type { Exchange } from "./exchange.js";

export interface BodyCallbacks {
  /** The complete body, exactly as received. */
  onBody(bytes: Buffer): void;
  /** The body broke a limit; it was read to its end and dropped. The caller answers and closes. */
  onRefused(message: string): void;
  /** Discarding passed one of its bounds: the caller closes the connection without an answer. */
  onAbandoned(reason: string): void;
  /** Something threw while reading; the caller answers 500. */
  onFailure(thrown: unknown): void;
}

/** How much of a refused body the server reads (and drops) so that the client sees the answer. */
export interface DiscardBounds {
  /** Bytes dropped after the refusal; a declared Content-Length above this is not read at all. */
  maxBytes: number;
  /** Time from the refusal to the last chunk. */
  maxMs: number;
}

const EMPTY = Buffer.alloc(0);

/**
 * Starts reading. `declaredBytes` is the parsed Content-Length, or undefined for a chunked body.
 * When `refusal` is given (a Content-Length over the limit, a request refused before its body) the
 * whole body is discarded and `onRefused(refusal)` follows its last chunk.
 */
export function readBody(
  exchange: Exchange,
  maxBodyBytes: number,
  declaredBytes: number | undefined,
  bounds: DiscardBounds,
  callbacks: BodyCallbacks,
  refusal?: string,
): void {
  let receivedBytes = 0;
  let finished = false;
  let preallocated: Buffer | undefined;
  let chunks: Buffer[] | undefined;
  /** Set once the body is refused: from then on chunks are counted, not copied. */
  let refusedWith: string | undefined;
  let discardedBytes = 0;
  let timer: NodeJS.Timeout | undefined;

  const stop = (): void => {
    finished = true;
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    preallocated = undefined;
    chunks = undefined;
  };
  const abandon = (reason: string): void => {
    stop();
    callbacks.onAbandoned(reason);
  };
  const refuse = (message: string): void => {
    refusedWith = message;
    preallocated = undefined;
    chunks = undefined;
    timer = setTimeout(() => {
      if (!finished && exchange.open) abandon(`request body still arriving ${bounds.maxMs} ms after it was refused`);
    }, bounds.maxMs);
    timer.unref();
  };

  // A timer must not outlive a client that left (nor keep its closure alive).
  exchange.onAbort(stop);
  if (refusal !== undefined) refuse(refusal);
  else if (declaredBytes !== undefined && declaredBytes > 0) preallocated = Buffer.allocUnsafe(declaredBytes);

  exchange.res.onData((chunk, isLast) => {
    // This is a uWS callback: it must never throw.
    try {
      if (finished || !exchange.open) return;
      const chunkBytes = chunk.byteLength;
      if (refusedWith === undefined) {
        if (receivedBytes + chunkBytes > maxBodyBytes) {
          refuse(`request body exceeds ${describeBytes(maxBodyBytes)}`);
        } else if (declaredBytes !== undefined && receivedBytes + chunkBytes > declaredBytes) {
          // uWS frames a Content-Length body itself, so this is a guard against our own bug.
          refuse("request body is longer than its Content-Length");
        }
      }
      if (refusedWith !== undefined) {
        discardedBytes += chunkBytes;
        if (discardedBytes > bounds.maxBytes) {
          abandon(`request body went on past ${describeBytes(bounds.maxBytes)} after it was refused`);
          return;
        }
        if (!isLast) return;
        const message = refusedWith;
        stop();
        callbacks.onRefused(message);
        return;
      }
      if (chunkBytes > 0) {
        if (preallocated !== undefined) {
          preallocated.set(new Uint8Array(chunk), receivedBytes);
        } else {
          const copy = Buffer.allocUnsafe(chunkBytes);
          copy.set(new Uint8Array(chunk));
          (chunks ??= []).push(copy);
        }
        receivedBytes += chunkBytes;
      }
      if (!isLast) return;
      const body = preallocated ?? concat(chunks, receivedBytes);
      stop();
      if (declaredBytes !== undefined && receivedBytes !== declaredBytes) {
        callbacks.onRefused("request body is shorter than its Content-Length");
        return;
      }
      callbacks.onBody(body);
    } catch (error) {
      stop();
      callbacks.onFailure(error);
    }
  });
}

function concat(chunks: Buffer[] | undefined, totalBytes: number): Buffer {
  if (chunks === undefined) return EMPTY;
  if (chunks.length === 1 && chunks[0] !== undefined) return chunks[0];
  return Buffer.concat(chunks, totalBytes);
}

/** "1 MiB" for the default limit, bytes otherwise: the message names the limit the client hit. */
export function describeBytes(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}
