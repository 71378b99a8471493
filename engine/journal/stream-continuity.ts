/**
 * What must hold between consecutive messages of a journal stream (jetstream-batch.ts), checked by
 * the JetStream journal's `read` and by the audit of a stream (engine/replay/stream-audit.ts):
 *
 * - messages follow each other: stream sequence n+1 after n;
 * - batches are contiguous: a message's first sequence is the one after the previous message's last
 *   entry (a claim's first sequence is the next entry's);
 * - epochs never go down, and a claim raises the epoch: a batch written in an epoch lower than a
 *   message before it is an owner writing after its successor's claim, which fencing must prevent;
 * - the hash chain: a batch's recorded chain is SHA-256-chained over its entries from the chain the
 *   message before it records (from 32 zero bytes before message 1).
 *
 * A break is a StreamBreakError naming the stream and the message's stream sequence.
 */
import { CHAIN_HASH_BYTES, genesisChainHash, shortHex } from "../../storage/hash-chain.js";
import { chainAfter, lastSequenceOf, type DecodedBatch } from "./jetstream-batch.js";

export class StreamBreakError extends Error {
  override name = "StreamBreakError";
  constructor(
    readonly stream: string,
    readonly streamSequence: number,
    detail: string,
  ) {
    super(`stream ${stream}, message at stream sequence ${streamSequence}: ${detail}`);
  }
}

/** What the checker knows of the stream after the last message it has checked. */
export interface ContinuityState {
  /** The last message checked (0: none; the next must be message 1). */
  readonly streamSequence: number;
  /** The sequence the next entry must have. */
  readonly nextSequence: number;
  readonly epoch: number;
  /** The chain after the last entry (32 bytes). */
  readonly chain: Uint8Array;
}

export class StreamContinuity {
  private state: ContinuityState;

  private constructor(
    private readonly stream: string,
    state: ContinuityState,
  ) {
    this.state = state;
  }

  /** Before message 1: nothing is taken on trust. */
  static fromStart(stream: string): StreamContinuity {
    return new StreamContinuity(stream, { streamSequence: 0, nextSequence: 1, epoch: 0, chain: genesisChainHash() });
  }

  /**
   * After message `streamSequence`, whose header is taken on its word (its sequence, epoch and
   * chain): what follows is checked from there.
   */
  static after(stream: string, streamSequence: number, header: DecodedBatch): StreamContinuity {
    return new StreamContinuity(stream, { streamSequence, nextSequence: lastSequenceOf(header) + 1, epoch: header.epoch, chain: header.chain });
  }

  get current(): ContinuityState {
    return this.state;
  }

  /** Checks the next message and advances past it; throws StreamBreakError on a break. */
  check(streamSequence: number, batch: DecodedBatch): void {
    const before = this.state;
    const broken = (detail: string): StreamBreakError => new StreamBreakError(this.stream, streamSequence, detail);
    if (streamSequence !== before.streamSequence + 1) throw broken(`expected the message at stream sequence ${before.streamSequence + 1} (messages are missing or out of order)`);
    if (batch.firstSequence !== before.nextSequence) {
      throw broken(`starts at entry sequence ${batch.firstSequence}, not ${before.nextSequence} (batches are not contiguous)`);
    }
    if (batch.count === 0 && batch.epoch <= before.epoch) {
      throw broken(`a claim of epoch ${batch.epoch} does not raise the epoch ${before.epoch} recorded before it`);
    }
    if (batch.epoch < before.epoch) {
      throw broken(`written in epoch ${batch.epoch} after epoch ${before.epoch} was recorded (an owner wrote after its successor's claim)`);
    }
    const chain = chainAfter(before.chain, batch.payloads);
    if (batch.chain.length !== CHAIN_HASH_BYTES || !chain.equals(batch.chain)) {
      const recorded = Buffer.from(batch.chain.buffer, batch.chain.byteOffset, batch.chain.byteLength);
      throw broken(`the hash chain breaks: its entries chain to ${shortHex(chain)}…, its header records ${shortHex(recorded)}… (an entry or the chain was altered)`);
    }
    this.state = { streamSequence, nextSequence: batch.firstSequence + batch.count, epoch: batch.epoch, chain: batch.chain };
  }
}
