/**
 * Reading a request body from uWS, bounded.
 *
 * - uWS reuses (neuters) each chunk's ArrayBuffer when the callback returns, so every chunk is
 *   copied before returning.
 * - With a Content-Length the body goes straight into one preallocated buffer (no concatenation);
 *   a chunked body collects its chunks.
 * - The limit is checked before copying: the chunk that would cross it is not buffered, the caller
 *   replies 400 at once and closes the connection, which stops uWS from reading the rest (replying
 *   without closing would make uWS read and discard the remainder, however large).
 */
import type { Exchange } from "./exchange.js";

export interface BodyCallbacks {
  /** The complete body, exactly as received. */
  onBody(bytes: Buffer): void;
  /** The body crossed `maxBodyBytes` (or disagreed with its Content-Length); nothing more is read. */
  onRefused(message: string): void;
  /** Something threw while reading; the caller answers 500. */
  onFailure(thrown: unknown): void;
}

const EMPTY = Buffer.alloc(0);

/**
 * Starts reading. `declaredBytes` is the parsed Content-Length (already checked against the
 * limit), or undefined for a chunked body.
 */
export function readBody(exchange: Exchange, maxBodyBytes: number, declaredBytes: number | undefined, callbacks: BodyCallbacks): void {
  let receivedBytes = 0;
  let finished = false;
  const preallocated = declaredBytes === undefined || declaredBytes === 0 ? undefined : Buffer.allocUnsafe(declaredBytes);
  let chunks: Buffer[] | undefined;

  exchange.res.onData((chunk, isLast) => {
    // This is a uWS callback: it must never throw.
    try {
      if (finished || !exchange.open) return;
      const chunkBytes = chunk.byteLength;
      if (receivedBytes + chunkBytes > maxBodyBytes) {
        finished = true;
        callbacks.onRefused(`request body exceeds ${describeBytes(maxBodyBytes)}`);
        return;
      }
      if (chunkBytes > 0) {
        if (preallocated !== undefined) {
          if (receivedBytes + chunkBytes > preallocated.length) {
            finished = true;
            callbacks.onRefused("request body is longer than its Content-Length");
            return;
          }
          preallocated.set(new Uint8Array(chunk), receivedBytes);
        } else {
          const copy = Buffer.allocUnsafe(chunkBytes);
          copy.set(new Uint8Array(chunk));
          (chunks ??= []).push(copy);
        }
        receivedBytes += chunkBytes;
      }
      if (!isLast) return;
      finished = true;
      if (declaredBytes !== undefined && receivedBytes !== declaredBytes) {
        callbacks.onRefused("request body is shorter than its Content-Length");
        return;
      }
      callbacks.onBody(preallocated ?? concat(chunks, receivedBytes));
    } catch (error) {
      finished = true;
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
