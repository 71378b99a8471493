/**
 * One subscriber's open event stream (docs/events.md): its backlog first, then the live events of
 * its market, each at most once and in sequence order, with what it may see (the creator: the
 * record's events; anyone else: their public views).
 *
 * The shard never waits for it: live events are written as they come; when the socket does not
 * take them (uWS keeps the rest and says when it can take more), what follows waits here, at most
 * `bufferBytes` of it. Past that the stream ends with `event: overflow` naming the last sequence
 * handed to the socket, from which the client resumes. The same bound holds for the live events
 * that arrive while the backlog is written; the backlog itself is written as the socket takes it.
 */
import type { OpenStream } from "../http/route.js";
import type { EmittedEvent } from "../../engine/shard-protocol/shard-protocol.js";
import { frameFor, type FeedBatch } from "./feed-batch.js";
import { endFrame, KEEP_ALIVE_FRAME, openFrame, overflowFrame, type StreamEndCode } from "./sse-frames.js";

/** Backlog frames are handed to the socket in pieces of about this many characters. */
const BACKLOG_PIECE_CHARS = 64 * 1024;
/** What a writable socket is given when nothing waits: uWS drains only when written to (route.ts). */
const DRAIN_FRAME = ":\n\n";

export const OVERFLOW_MESSAGE = "the subscriber did not read its events fast enough; resume after resumeAfter";

type Phase = "backlog" | "live" | "ended";

export class EventSubscriber {
  private stream: OpenStream | undefined;
  private phase: Phase = "backlog";
  /** Live batches that arrived while the backlog was read and written. */
  private stash: FeedBatch[] = [];
  private stashChars = 0;
  /** Text the socket has not taken yet, and the sequence it covers up to. */
  private waiting: string[] = [];
  private waitingChars = 0;
  private waitingCovers = 0;
  private blocked = false;
  private drainWaiters: Array<() => void> = [];
  /** Something was written since the last keep-alive tick. */
  private wroteSinceTick = false;
  /** Everything this subscriber may see up to this sequence was handed to the socket. */
  private covered: number;

  constructor(
    /** The creator principal or the creating actor: sees the record's events; others their public views. */
    readonly creator: boolean,
    /** The sequence after which the stream starts. */
    after: number,
    private readonly bufferChars: number,
    /** Runs once when the stream ends, whoever ends it. */
    private readonly onEnded: (subscriber: EventSubscriber) => void,
  ) {
    this.covered = after;
  }

  get ended(): boolean {
    return this.phase === "ended";
  }

  /** The last sequence handed to the socket (everything this subscriber may see up to it). */
  get lastCovered(): number {
    return this.covered;
  }

  attach(stream: OpenStream): void {
    this.stream = stream;
    stream.onClose(() => this.finish());
    stream.onWritable(() => this.writable());
    this.write(openFrame(this.covered));
  }

  /** Live events of the market (the feed's batch): written now, or kept while the backlog is written. */
  deliver(batch: FeedBatch): void {
    if (this.phase === "ended" || batch.lastSequence <= this.covered) return;
    if (this.phase === "backlog") {
      this.stash.push(batch);
      this.stashChars += (this.creator ? batch.creatorText : batch.publicText).length;
      if (this.stashChars > this.bufferChars) this.overflow();
      return;
    }
    const first = batch.events[0];
    if (first !== undefined && first.sequence <= this.covered) {
      this.send(this.framesAfter(batch.events, this.covered), batch.lastSequence);
      return;
    }
    this.send(this.creator ? batch.creatorText : batch.publicText, batch.lastSequence);
  }

  /** The backlog (the record's events after the start, as JSON envelopes), written as the socket takes it. */
  async writeBacklog(events: ReadonlyArray<{ sequence: number; json: string; publicJson: string }>): Promise<void> {
    let piece = "";
    let pieceCovers = this.covered;
    for (const event of events) {
      if (this.phase === "ended") return;
      if (event.sequence <= pieceCovers) continue;
      piece += frameFor({ marketId: "", ...event }, this.creator);
      pieceCovers = event.sequence;
      if (piece.length >= BACKLOG_PIECE_CHARS) {
        this.send(piece, pieceCovers);
        piece = "";
        if (this.blocked) await this.drained();
      }
    }
    if (this.phase !== "ended" && pieceCovers > this.covered) this.send(piece, pieceCovers);
  }

  /** After the backlog: the live events that came meanwhile (those not in it), then live. */
  goLive(): void {
    if (this.phase !== "backlog") return;
    this.phase = "live";
    const stash = this.stash;
    this.stash = [];
    this.stashChars = 0;
    for (const batch of stash) this.deliver(batch);
  }

  /** The keep-alive tick: a comment on a stream that carried nothing since the last tick. */
  tick(): void {
    if (this.phase === "ended" || this.stream === undefined) return;
    if (!this.wroteSinceTick && !this.blocked) this.write(KEEP_ALIVE_FRAME);
    this.wroteSinceTick = false;
  }

  /** Ends the stream with `event: end` (after what waits for the socket, which uWS then keeps). */
  end(code: StreamEndCode, message: string): void {
    if (this.phase === "ended") return;
    const rest = this.waiting.join("");
    if (this.waitingChars > 0) this.covered = this.waitingCovers;
    this.close(rest + endFrame(code, message, this.covered));
  }

  private overflow(): void {
    // What waits is dropped: the client resumes after the last sequence the socket took.
    this.close(overflowFrame(OVERFLOW_MESSAGE, this.covered));
  }

  private close(lastText: string): void {
    this.waiting = [];
    this.waitingChars = 0;
    this.stash = [];
    const stream = this.stream;
    this.finish();
    stream?.end(lastText);
  }

  private finish(): void {
    if (this.phase === "ended") return;
    this.phase = "ended";
    this.blocked = false;
    for (const wake of this.drainWaiters.splice(0)) wake();
    this.onEnded(this);
  }

  private framesAfter(events: readonly EmittedEvent[], after: number): string {
    let text = "";
    for (const event of events) if (event.sequence > after) text += frameFor(event, this.creator);
    return text;
  }

  /** Hands `text` (covering events up to `covers`) to the socket, or keeps it while the socket is full. */
  private send(text: string, covers: number): void {
    if (this.blocked) {
      if (text.length > 0) {
        this.waiting.push(text);
        this.waitingChars += text.length;
      }
      this.waitingCovers = covers;
      if (this.waitingChars > this.bufferChars) this.overflow();
      return;
    }
    if (text.length > 0) this.write(text);
    this.covered = covers;
  }

  private write(text: string): void {
    const stream = this.stream;
    if (stream === undefined || stream.closed) return;
    this.wroteSinceTick = true;
    if (!stream.write(text)) this.blocked = true;
  }

  /** The socket can take more: what waits, or a comment so that uWS drains what it keeps. */
  private writable(): void {
    if (this.phase === "ended") return;
    const stream = this.stream;
    if (stream === undefined) return;
    let accepted: boolean;
    if (this.waitingChars > 0 || this.waiting.length > 0) {
      const text = this.waiting.join("");
      this.waiting = [];
      this.waitingChars = 0;
      this.covered = this.waitingCovers;
      accepted = stream.write(text);
    } else {
      if (this.waitingCovers > this.covered) this.covered = this.waitingCovers;
      accepted = stream.write(DRAIN_FRAME);
    }
    this.wroteSinceTick = true;
    this.blocked = !accepted;
    if (!this.blocked) for (const wake of this.drainWaiters.splice(0)) wake();
  }

  private drained(): Promise<void> {
    if (!this.blocked || this.phase === "ended") return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }
}
