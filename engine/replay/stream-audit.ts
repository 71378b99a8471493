/**
 * Audit from a partition's stream (cluster mode, issue 27): `replay` and `verify` of a JetStream
 * journal stream, read live or from an export file (engine/journal/stream-export.ts).
 *
 * The records and record hashes are those a data directory's audit produces for the same commands:
 * the entries are folded through the same fold (log-fold.ts) in entry order, and each market's
 * record is rebuilt by the same function (market-audit.ts) from the same payloads; nothing of the
 * stream's framing (positions, epochs, message boundaries) enters a record. A stream is one
 * partition: its markets' lines name the partition where a data directory's name the shard, taken
 * from the stream's name `partition-<p>` (0 for a stream named otherwise).
 *
 * Both check every message against the one before it (stream-continuity.ts: no missing message,
 * contiguous entries, epochs that claims raise and no owner lowers, and the hash chain from 32 zero
 * bytes), and an export's CRCs; the first break is named by its stream sequence (and, in an export,
 * its byte offset). `verify` also requires every market to reconstruct from its events and compares
 * the stream's newest snapshot in the snapshot bucket, when the source has one (a live stream), with
 * the replayed state at the message its mark names. A stream that does not start at message 1 is
 * refused: its first entries are gone.
 */
import type { Command } from "../rules/types/command.js";
import type { MarketRecord } from "@market-service/client/wire";
import { buildMarketRecord } from "../record.js";
import { LogFold, type ShardMarket } from "../log-fold.js";
import { decodeLoggedCommand } from "../log/logged-command.js";
import { decodeLogEntry } from "../log/logged-head.js";
import { HeadAudit, headChecksOf, summarizeHeads, type SignedHeadsSummary } from "../audit/heads/head-audit.js";
import type { HeadInterval } from "../audit/heads/unsigned-tail.js";
import type { PublicKeyEntry } from "../audit/signing/head-keys.js";
import { decodeBatch, lastSequenceOf, locate, positionOf, type DecodedBatch } from "../journal/jetstream-batch.js";
import type { StreamMessage } from "../journal/jetstream-stream-reader.js";
import { startingSnapshot, type StoredSnapshot, type UnreadableSnapshot } from "../journal/jetstream-snapshots.js";
import { StreamContinuity } from "../journal/stream-continuity.js";
import type { StreamExportReader } from "../journal/stream-export.js";
import { DEFAULT_KEPT_PAYLOAD_BYTES, KeptPayloads } from "./kept-payloads.js";
import { auditMarket, notReconstructed, snapshotDivergence } from "./market-audit.js";
import type { MarketAudit } from "../pool/shard-audit.js";
import { replayResult, type ReplayResult, type VerifyResult } from "./audit-replay.js";

/** A journal stream to audit: live (engine/journal/jetstream-stream-source.ts) or an export. */
export interface AuditedStream {
  readonly name: string;
  /** The stream's first message (an audit needs 1). */
  readonly firstStreamSequence: number;
  /** Hands every message to `onMessage`, in stream order. */
  messages(onMessage: (message: StreamMessage) => void): Promise<void>;
  /** A message's body again (records are rebuilt after the pass; what the pass kept is not read again). */
  body(streamSequence: number): Promise<Uint8Array>;
  /** The stream's newest snapshot, where the source has snapshots (a live stream); why, if its object cannot be read. */
  newestSnapshot?(): Promise<StoredSnapshot | UnreadableSnapshot | undefined>;
}

/** An export file as a stream to audit. */
export function exportedStream(reader: StreamExportReader): AuditedStream {
  return {
    name: reader.header.stream,
    firstStreamSequence: reader.header.firstStreamSequence,
    messages: async (onMessage) => reader.messages(onMessage),
    body: async (streamSequence) => reader.body(streamSequence),
  };
}

/** What the stream itself showed: for the audit's summary (an owner change is a claim). */
export interface StreamFacts {
  readonly stream: string;
  readonly partition: number;
  readonly messages: number;
  /** Zero-entry messages: owners' claims. */
  readonly claims: number;
  /** The epoch of the last message (0: never owned). */
  readonly lastEpoch: number;
  /** The hash chain after the last entry, hex (32 zero bytes for an empty stream). */
  readonly chainHead: string;
}

export interface StreamReplayResult extends ReplayResult {
  readonly stream: StreamFacts;
}

export interface StreamVerifyResult extends VerifyResult {
  /** What the stream showed up to the end or, on a problem, up to where reading stopped. */
  readonly stream: StreamFacts;
}

export interface StreamAuditOptions {
  /** Payload bytes kept from the pass for rebuilding records (default 256 MiB); the rest is read again. */
  readonly keptPayloadBytes?: number;
  /** verify: the service's public keys; with them every signed head's signature is checked, and the unsigned tail (audit-replay.ts's AuditOptions). */
  readonly publicKeys?: readonly PublicKeyEntry[];
  readonly headInterval?: HeadInterval;
}

/** The partition a stream's name names (`partition-<p>`), else 0. */
export function partitionOfStream(name: string): number {
  const match = /^partition-(\d{1,9})$/.exec(name);
  return match === null ? 0 : Number(match[1]);
}

interface Folded {
  readonly fold: LogFold;
  readonly commands: number;
  readonly signedHeads: SignedHeadsSummary;
  readonly facts: StreamFacts;
  readonly kept: KeptPayloads;
  /** Offsets of each market's kept payloads, in record order (a prefix of its commands). */
  readonly keptOffsets: Map<string, number[]>;
  readonly snapshotsCompared: number;
  /** The sequence of the stream's last entry (0: none). */
  readonly lastSequence: number;
}

/** A problem found while folding, carrying what the fold saw up to it. */
class FoldProblem extends Error {
  constructor(
    message: string,
    readonly facts: StreamFacts,
  ) {
    super(message);
  }
}

/**
 * Reads every message in order, checks it against the one before (and, with `snapshot`, compares
 * the snapshot at the message its mark names), and folds its entries.
 */
async function foldStream(source: AuditedStream, keptPayloadBytes: number, snapshot: StoredSnapshot | undefined, options: StreamAuditOptions): Promise<Folded> {
  const name = source.name;
  const partition = partitionOfStream(name);
  const where = `partition ${partition} (stream ${name})`;
  const continuity = StreamContinuity.fromStart(name);
  const fold = new LogFold();
  const kept = new KeptPayloads(keptPayloadBytes);
  const keptOffsets = new Map<string, number[]>();
  const heads = new HeadAudit(name, headChecksOf(options.publicKeys, options.headInterval));
  let messages = 0;
  let claims = 0;
  let snapshotsCompared = 0;
  const facts = (): StreamFacts => {
    const state = continuity.current;
    return { stream: name, partition, messages, claims, lastEpoch: state.epoch, chainHead: Buffer.from(state.chain).toString("hex") };
  };
  const compareSnapshot = (streamSequence: number, msgId: string, batch: DecodedBatch | undefined): void => {
    if (snapshot === undefined || snapshot.mark.streamSequence !== streamSequence) return;
    const mark = snapshot.mark;
    const at = `sequence ${mark.sequence} (message ${mark.streamSequence})`;
    if (batch !== undefined && msgId !== mark.batchId) throw new Error(`${where}: the snapshot at ${at} was taken after batch ${mark.batchId}, and the stream's message ${streamSequence} is batch ${msgId}`);
    const endsAt = batch === undefined ? 0 : lastSequenceOf(batch);
    if (endsAt !== mark.sequence) throw new Error(`${where}: the snapshot at ${at} names a message that ends at sequence ${endsAt}`);
    const compared = snapshotDivergence(where, at, snapshot.payload, fold.markets);
    if (compared.problem !== undefined) throw new Error(compared.problem);
    if (compared.compared) snapshotsCompared += 1;
  };
  try {
    if (source.firstStreamSequence !== 1) throw new Error(`${where}: the stream starts at message ${source.firstStreamSequence}: messages were removed from it, and an audit needs every entry`);
    compareSnapshot(0, "", undefined);
    await source.messages((message) => {
      const batch = decodeBatch(message.data, message.streamSequence);
      continuity.check(message.streamSequence, batch);
      messages += 1;
      if (batch.count === 0) claims += 1;
      batch.payloads.forEach((payload, index) => {
        const entry = decodeLogEntry(payload);
        heads.entry(batch.firstSequence + index, payload, entry);
        if (entry.kind === "head") return;
        const owner = fold.apply(entry.logged.c, positionOf(message.streamSequence, index)).market;
        if (owner === undefined) return;
        const offset = kept.keep(payload);
        if (offset < 0) return;
        const id = owner.agg.market.id;
        const offsets = keptOffsets.get(id);
        if (offsets === undefined) keptOffsets.set(id, [offset]);
        else offsets.push(offset);
      });
      compareSnapshot(message.streamSequence, message.msgId, batch);
    });
    if (snapshot !== undefined && snapshot.mark.streamSequence > continuity.current.streamSequence) {
      throw new Error(`${where}: the snapshot at sequence ${snapshot.mark.sequence} names message ${snapshot.mark.streamSequence}, beyond the stream's last message ${continuity.current.streamSequence}`);
    }
    const problem = heads.report().problem;
    if (problem !== undefined) throw new Error(`${where}: ${problem}`);
  } catch (error) {
    // A break (StreamBreakError), a damaged export (StreamExportDamagedError), a message or entry
    // that does not decode, a snapshot that differs, or a stream that cannot be read to its end.
    throw new FoldProblem(error instanceof Error ? error.message : String(error), facts());
  }
  const signedHeads = summarizeHeads([heads.report()], options.publicKeys !== undefined);
  const lastSequence = continuity.current.nextSequence - 1;
  return { fold, commands: lastSequence - signedHeads.heads, signedHeads, facts: facts(), kept, keptOffsets, snapshotsCompared, lastSequence };
}

/** A market's commands: those the pass kept (a prefix), the rest read from their messages again. */
async function commandsOf(source: AuditedStream, folded: Folded, marketId: string, positions: readonly number[]): Promise<Command[]> {
  const commands: Command[] = [];
  for (const offset of folded.keptOffsets.get(marketId) ?? []) commands.push(decodeLoggedCommand(folded.kept.payloadAt(offset)).c);
  let batch: DecodedBatch | undefined;
  let batchSequence = 0;
  for (const position of positions.slice(commands.length)) {
    const { streamSequence, index } = locate(position);
    if (batch === undefined || batchSequence !== streamSequence) {
      batch = decodeBatch(await source.body(streamSequence), streamSequence);
      batchSequence = streamSequence;
    }
    const payload = batch.payloads[index];
    if (payload === undefined) throw new Error(`stream ${source.name}: message ${streamSequence} has no entry ${index}`);
    commands.push(decodeLoggedCommand(payload).c);
  }
  return commands;
}

async function auditMarkets(source: AuditedStream, folded: Folded, stopIfNotReconstructed: boolean): Promise<{ markets: MarketAudit[]; problem?: string }> {
  const markets: MarketAudit[] = [];
  const partition = folded.facts.partition;
  for (const [marketId, entry] of folded.fold.markets) {
    const audit = auditMarket(partition, marketId, await commandsOf(source, folded, marketId, entry.positions), entry);
    markets.push(audit);
    if (stopIfNotReconstructed && !audit.stateReconstructed) return { markets, problem: notReconstructed(`partition ${partition} (stream ${source.name})`, marketId) };
  }
  return { markets };
}

function byMarketId(a: MarketAudit, b: MarketAudit): number {
  return a.marketId < b.marketId ? -1 : a.marketId > b.marketId ? 1 : 0;
}

/** A stream is one partition's log: one "shard" in the result. */
function resultOf(commands: number, markets: MarketAudit[], startedMs: number, rate: boolean): ReplayResult {
  return replayResult(1, commands, markets, startedMs, rate);
}

/** Every market's record hash, from the stream's entries; a break in the stream throws, naming it. */
export async function replayStream(source: AuditedStream, options: StreamAuditOptions = {}): Promise<StreamReplayResult> {
  const startedMs = performance.now();
  const folded = await foldStream(source, options.keptPayloadBytes ?? DEFAULT_KEPT_PAYLOAD_BYTES, undefined, {});
  const { markets } = await auditMarkets(source, folded, false);
  markets.sort(byMarketId);
  return { ...resultOf(folded.commands, markets, startedMs, true), stream: folded.facts };
}

/**
 * Everything `replayStream` does, plus every market reconstructing and the newest snapshot (if the
 * source has one) against the replayed state; the first problem is returned, not thrown.
 */
export async function verifyStream(source: AuditedStream, options: StreamAuditOptions = {}): Promise<StreamVerifyResult> {
  const startedMs = performance.now();
  let folded: Folded;
  let unreadable: UnreadableSnapshot | undefined;
  try {
    const newest = source.newestSnapshot === undefined ? undefined : await source.newestSnapshot();
    // An unreadable snapshot is the audit's last problem: the stream, and the older snapshot a new owner starts from instead, are checked first.
    if (newest !== undefined && "unreadable" in newest) unreadable = newest;
    folded = await foldStream(source, options.keptPayloadBytes ?? DEFAULT_KEPT_PAYLOAD_BYTES, startingSnapshot(newest), options);
  } catch (error) {
    if (!(error instanceof FoldProblem)) throw error;
    const problem = unreadable === undefined ? error.message : `${error.message} (and the stream's newest snapshot cannot be read: ${unreadable.unreadable})`;
    return { ok: false, problem, replay: resultOf(0, [], startedMs, false), snapshotsCompared: 0, signedHeads: summarizeHeads([], options.publicKeys !== undefined), stream: error.facts };
  }
  const audited = await auditMarkets(source, folded, true);
  if (audited.problem !== undefined) {
    return { ok: false, problem: audited.problem, replay: resultOf(folded.commands, audited.markets, startedMs, false), snapshotsCompared: folded.snapshotsCompared, signedHeads: folded.signedHeads, stream: folded.facts };
  }
  audited.markets.sort(byMarketId);
  if (unreadable !== undefined) {
    const problem = `stream ${source.name}: its newest snapshot cannot be read (${unreadable.unreadable}); every message of the stream verified, and ${whatANewOwnerDoes(unreadable, folded)}`;
    return { ok: false, problem, replay: resultOf(folded.commands, audited.markets, startedMs, true), snapshotsCompared: folded.snapshotsCompared, signedHeads: folded.signedHeads, stream: folded.facts };
  }
  return { ok: true, replay: resultOf(folded.commands, audited.markets, startedMs, true), snapshotsCompared: folded.snapshotsCompared, signedHeads: folded.signedHeads, stream: folded.facts };
}

/** What a new owner does about an unreadable newest snapshot (engine/journal/jetstream-journal.ts), given what the audit found. */
function whatANewOwnerDoes(unreadable: UnreadableSnapshot, folded: Folded): string {
  if (unreadable.sequence > folded.lastSequence) return `its name's sequence ${unreadable.sequence} is beyond the stream's last entry ${folded.lastSequence}: a new owner refuses to open the stream`;
  if (unreadable.older === undefined) return "a new owner, which has no older snapshot to start from, replays the stream";
  const compared = folded.snapshotsCompared > 0 ? "matched" : "could not be compared (a format this build does not read)";
  return `the snapshot before it (sequence ${unreadable.older.mark.sequence}), which a new owner tries instead, ${compared}`;
}

/** One market's full record, from the stream; undefined if the stream holds no such market. */
export async function replayStreamMarketRecord(source: AuditedStream, marketId: string): Promise<MarketRecord | undefined> {
  const folded = await foldStream(source, DEFAULT_KEPT_PAYLOAD_BYTES, undefined, {});
  const entry: ShardMarket | undefined = folded.fold.markets.get(marketId);
  if (entry === undefined) return undefined;
  return buildMarketRecord(await commandsOf(source, folded, marketId, entry.positions), entry.agg);
}
