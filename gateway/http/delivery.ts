/**
 * Which replies reached the socket, for the access log and the metrics.
 *
 * A reply written while uWS is still parsing the read that carried its request goes into the
 * socket's cork buffer (see loop-turn.ts). If uWS closes the connection later in that same read, the
 * buffer is dropped and the client never gets the reply, yet uWS tells nobody: the exchange that
 * wrote it has ended, and uWS calls no `onAborted` for an ended response. That happens when
 *
 * 1. a pipelined request arrives while an earlier answer on the connection is pending (uWS then
 *    closes the connection, "not ready for another request");
 * 2. a request after it in the same read is one uWS refuses (malformed, unknown method, a
 *    Content-Length that is not 1–9 digits, a bad chunk).
 *
 * What JS can see: in case 1, and in case 2 when that later request reached a handler (a bad
 * Content-Length, a bad chunk in a body being read), the exchange of the request being parsed when
 * uWS closed gets `onAborted` in the same turn it was created in, before any other exchange was
 * created. Every reply given synchronously in that turn, just before it, by exchanges of the same
 * peer address, with no pending exchange in between, was in the same read of the same connection:
 * uWS parses a read from start to end without interleaving other sockets, and it can only get to
 * the next request of a connection once the previous one was answered. So reports of replies given
 * in the turn of their request wait for the turn's end, and those are reported lost (status 0,
 * aborted) when such an abort follows them.
 *
 * Limits (docs/http.md): JS cannot tell connections apart, so a reply that another connection of
 * the same peer address gave in the same turn right before the killed request's read is counted as
 * lost too; and a close that comes with no handler at all in that read (case 2 for requests uWS
 * refuses before routing) cannot be seen, so those replies still count as delivered.
 */
import type { LoopTurn } from "./loop-turn.js";

/** What the tracker needs from an exchange (exchange.ts implements it). */
export interface TrackedReply {
  /** The peer's address, as text. */
  readonly peer: string;
  /** The turn the request arrived in. */
  readonly turn: number;
  /** True once a reply was written in the turn the request arrived in. */
  readonly repliedInItsTurn: boolean;
  /** The reply reached the socket: report it. */
  confirmDelivery(): void;
  /** The reply was dropped with the connection: report it as lost. */
  reportLost(): void;
}

export class DeliveryTracker {
  /** Exchanges of this turn that may share a read: consecutive, same peer, each answered at once. */
  private run: TrackedReply[] = [];
  private runTurn = -1;
  /** Replies of this turn whose report waits for its end. */
  private deferred: TrackedReply[] = [];
  private readonly lost = new Set<TrackedReply>();

  constructor(private readonly turn: LoopTurn) {}

  /** A request arrived (called when its exchange is created). */
  arrived(exchange: TrackedReply): void {
    this.turn.touch();
    const last = this.run[this.run.length - 1];
    if (this.runTurn === this.turn.id && last !== undefined && last.repliedInItsTurn && last.peer === exchange.peer) {
      this.run.push(exchange);
    } else {
      this.run = [exchange];
      this.runTurn = this.turn.id;
    }
  }

  /** A reply was written in its request's turn: its report waits for the turn's end. */
  defer(exchange: TrackedReply): void {
    if (this.deferred.length === 0) this.turn.atEnd(this.endOfTurn);
    this.deferred.push(exchange);
  }

  /** An exchange was aborted before its reply. If uWS closed the connection while parsing the read
   * that brought it, the replies given before it in that read were dropped. */
  aborted(exchange: TrackedReply): void {
    if (exchange.turn !== this.turn.id || this.runTurn !== this.turn.id) return;
    const run = this.run;
    if (run[run.length - 1] !== exchange) return; // another request arrived since: not that parse
    for (let i = 0; i < run.length - 1; i++) {
      const earlier = run[i];
      if (earlier !== undefined && !this.lost.has(earlier)) {
        this.lost.add(earlier);
        earlier.reportLost();
      }
    }
    this.run = [];
  }

  private readonly endOfTurn = (): void => {
    const deferred = this.deferred;
    this.deferred = [];
    this.run = [];
    for (const exchange of deferred) {
      if (!this.lost.has(exchange)) exchange.confirmDelivery();
    }
    this.lost.clear();
  };
}
