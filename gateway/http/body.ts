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

/** How much of a refused body the server reads (and drops) so that the client sees the answer: the server's limits (server.ts HttpLimits). */
export interface DiscardBounds {
  /** Bytes dropped after the refusal; a declared Content-Length above this is not read at all. */
  maxDiscardBytes: number;
  /** Time from the refusal to the last chunk. */
  maxDiscardMs: number;
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
  const reader = new BodyReader(exchange, maxBodyBytes, declaredBytes, bounds, callbacks);
  if (refusal !== undefined) reader.refuse(refusal);
  else if (declaredBytes !== undefined && declaredBytes > 0) reader.preallocate(declaredBytes);
  exchange.res.onData((chunk, isLast) => reader.onData(chunk, isLast));
}

/** One body being read: kept (copied) until it breaks a limit, then counted and dropped. */
class BodyReader {
  private receivedBytes = 0;
  private finished = false;
  private preallocated: Buffer | undefined;
  private chunks: Buffer[] | undefined;
  /** Set once the body is refused: from then on chunks are counted, not copied. */
  private refusedWith: string | undefined;
  private discardedBytes = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly exchange: Exchange,
    private readonly maxBodyBytes: number,
    private readonly declaredBytes: number | undefined,
    private readonly bounds: DiscardBounds,
    private readonly callbacks: BodyCallbacks,
  ) {}

  /** A Content-Length body goes straight into one buffer of that size. */
  preallocate(bytes: number): void {
    this.preallocated = Buffer.allocUnsafe(bytes);
  }

  /** The uWS data callback. It must never throw. */
  onData(chunk: ArrayBuffer, isLast: boolean): void {
    try {
      if (this.finished || !this.exchange.open) return;
      if (this.refusedWith === undefined) this.checkLimits(chunk.byteLength);
      if (this.refusedWith === undefined) this.keep(chunk, isLast);
      else this.discard(chunk.byteLength, isLast);
    } catch (error) {
      this.stop();
      this.callbacks.onFailure(error);
    }
  }

  /** Refuses the body if this chunk takes it over the route's limit or its Content-Length. */
  private checkLimits(chunkBytes: number): void {
    if (this.receivedBytes + chunkBytes > this.maxBodyBytes) {
      this.refuse(`request body exceeds ${describeBytes(this.maxBodyBytes)}`);
    } else if (this.declaredBytes !== undefined && this.receivedBytes + chunkBytes > this.declaredBytes) {
      // uWS frames a Content-Length body itself, so this is a guard against our own bug.
      this.refuse("request body is longer than its Content-Length");
    }
  }

  /** Copies the chunk (uWS reuses its memory after the callback), and hands over the body after the last. */
  private keep(chunk: ArrayBuffer, isLast: boolean): void {
    const chunkBytes = chunk.byteLength;
    if (chunkBytes > 0) {
      if (this.preallocated !== undefined) {
        this.preallocated.set(new Uint8Array(chunk), this.receivedBytes);
      } else {
        const copy = Buffer.allocUnsafe(chunkBytes);
        copy.set(new Uint8Array(chunk));
        (this.chunks ??= []).push(copy);
      }
      this.receivedBytes += chunkBytes;
    }
    if (!isLast) return;
    const body = this.preallocated ?? concat(this.chunks, this.receivedBytes);
    this.stop();
    if (this.declaredBytes !== undefined && this.receivedBytes !== this.declaredBytes) {
      this.callbacks.onRefused("request body is shorter than its Content-Length");
      return;
    }
    this.callbacks.onBody(body);
  }

  /** Counts a chunk of a refused body; after the last, the refusal is answered. */
  private discard(chunkBytes: number, isLast: boolean): void {
    this.discardedBytes += chunkBytes;
    if (this.discardedBytes > this.bounds.maxDiscardBytes) {
      this.abandon(`request body went on past ${describeBytes(this.bounds.maxDiscardBytes)} after it was refused`);
      return;
    }
    if (!isLast) return;
    const message = this.refusedWith as string;
    this.stop();
    this.callbacks.onRefused(message);
  }

  /** From now on chunks are counted and dropped; the last one must come within `bounds.maxDiscardMs`. */
  refuse(message: string): void {
    this.refusedWith = message;
    this.preallocated = undefined;
    this.chunks = undefined;
    const maxMs = this.bounds.maxDiscardMs;
    this.timer = setTimeout(() => {
      if (!this.finished && this.exchange.open) this.abandon(`request body still arriving ${maxMs} ms after it was refused`);
    }, maxMs);
    this.timer.unref();
    // The timer must not outlive a client that left (nor keep its closure alive). A body being kept
    // needs no hook: uWS drops its data handler, and with it the reader, when the client leaves.
    this.exchange.onAbort(() => this.stop());
  }

  private abandon(reason: string): void {
    this.stop();
    this.callbacks.onAbandoned(reason);
  }

  /** Reading is over (done, refused, abandoned, or the client left): nothing more is kept. */
  stop(): void {
    this.finished = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.preallocated = undefined;
    this.chunks = undefined;
  }
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
