/**
 * Watches every message the simulated NATS servers commit to a journal stream, as it is committed,
 * and checks what must hold of the streams themselves:
 *
 * - continuity (engine/journal/stream-continuity.ts, the journal's and the audit's own rules):
 *   contiguous batches, epochs that never go down, claims that raise them, the hash chain;
 * - at most one node appends in each epoch of a partition's (or key binding) stream;
 * - every command executes at most once in the whole cluster (one (actor, commandId) logged once
 *   across every partition), and every deadline's system command is logged at most once.
 *
 * It also folds each partition's commands through the rules, as any replay does (engine/log-fold.ts
 * applies the same rules), so the checks of replies (client-ledger.ts) and of records
 * (end-checks.ts) have the stream's own answer: for every logged command, the reply its replay gives.
 * The identity stream's frames carry their reply and events: the reply is the stream's answer, and
 * the events fold to the identity state every node must reach.
 */
import { decodeBatch } from "../../../engine/journal/jetstream-batch.js";
import { StreamContinuity } from "../../../engine/journal/stream-continuity.js";
import { handleCommand, marketIdOfCommand } from "../../../engine/rules/handle-command.js";
import type { MarketAggregate } from "../../../engine/rules/state/state.js";
import type { Command } from "../../../engine/rules/types/command.js";
import { decodeLogEntry } from "../../../engine/log/logged-head.js";
import { tableStorage } from "../../../engine/store/market-storage.js";
import type { CommittedMessage } from "../nats/sim-stream.js";
import { decodeIdentityFrame } from "../../../engine/identity/frame.js";
import { emptyIdentityState, evolve as evolveIdentity, type IdentityState } from "../../../engine/identity/index.js";
import { identityReplyAsShardReply } from "../identity-commands.js";
import type { Violations } from "./violations.js";

/** A command as the streams logged it. */
export interface Execution {
  /** The partition whose stream logged it, or "identity". */
  readonly partition: number | "identity";
  readonly streamSequence: number;
  readonly committedAtMs: number;
  /** The client command's fingerprint (undefined for a system command). */
  readonly fingerprint: string | undefined;
  /** The reply the stream's replay gives: its JSON, or `code: message`. */
  readonly reply: string;
}

export interface FoldedMarket {
  agg: MarketAggregate;
  readonly commands: Command[];
  readonly partition: number;
}

export function keyOf(actorId: string, commandId: string): string {
  return `${actorId}\u0000${commandId}`;
}

/** A reply as text: what two replies must agree on. */
export function replyText(reply: { ok: true; json: string } | { ok: false; code: string; message: string }): string {
  return reply.ok ? reply.json : `${reply.code}: ${reply.message}`;
}

export class StreamAuditor {
  private readonly continuity = new Map<string, StreamContinuity>();
  /** Per stream, per epoch: the node whose writer appended in it. */
  private readonly writers = new Map<string, Map<number, string>>();
  readonly executions = new Map<string, Execution>();
  readonly markets = new Map<string, FoldedMarket>();
  /** The identity stream's events, folded. */
  readonly identity: IdentityState = emptyIdentityState();
  /** Messages per stream, for the trace's summary. */
  readonly committedMessages = new Map<string, number>();

  constructor(private readonly violations: Violations) {}

  committed(stream: string, message: CommittedMessage): void {
    this.committedMessages.set(stream, (this.committedMessages.get(stream) ?? 0) + 1);
    if (!stream.startsWith("partition-") && !stream.startsWith("keys-") && stream !== "identity") return;
    let batch;
    try {
      batch = decodeBatch(message.data, message.streamSequence);
      let continuity = this.continuity.get(stream);
      if (continuity === undefined) {
        continuity = StreamContinuity.fromStart(stream);
        this.continuity.set(stream, continuity);
      }
      continuity.check(message.streamSequence, batch);
    } catch (error) {
      this.violations.report(`stream ${stream} breaks at message ${message.streamSequence}: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    if (batch.epoch > 0) {
      const node = message.msgId.split(".")[0] ?? "";
      const byEpoch = this.writers.get(stream) ?? new Map<number, string>();
      this.writers.set(stream, byEpoch);
      const writer = byEpoch.get(batch.epoch);
      if (writer === undefined) byEpoch.set(batch.epoch, node);
      else if (writer !== node) this.violations.report(`two nodes appended to ${stream} in epoch ${batch.epoch}: ${writer} and ${node} (message ${message.streamSequence})`);
    }
    if (stream === "identity") {
      for (const payload of batch.payloads) this.executeIdentity(message, payload);
      return;
    }
    if (!stream.startsWith("partition-")) return;
    const partition = Number(stream.slice("partition-".length));
    for (const payload of batch.payloads) {
      const entry = decodeLogEntry(payload);
      if (entry.kind !== "command") continue;
      this.execute(partition, message, entry.logged.c, entry.logged.f);
    }
  }

  private executeIdentity(message: CommittedMessage, payload: Uint8Array): void {
    const frame = decodeIdentityFrame(payload);
    for (const event of frame.e) evolveIdentity(this.identity, event);
    if (frame.f === undefined || frame.r === undefined || !("commandId" in frame.c.meta)) return; // an internal command (a token)
    const key = keyOf(frame.c.meta.actorId, frame.c.meta.commandId);
    const earlier = this.executions.get(key);
    if (earlier !== undefined) {
      this.violations.report(`identity command ${frame.c.meta.commandId} of ${frame.c.meta.actorId} executed twice: ${earlier.partition === "identity" ? "identity" : `partition-${earlier.partition}`} message ${earlier.streamSequence} and identity message ${message.streamSequence}`);
      return;
    }
    const reply = identityReplyAsShardReply(frame.r);
    this.executions.set(key, { partition: "identity", streamSequence: message.streamSequence, committedAtMs: message.committedAtMs, fingerprint: frame.f, reply: replyText(reply.ok ? { ok: true, json: reply.json as string } : reply) });
  }

  private execute(partition: number, message: CommittedMessage, command: Command, fingerprint: string | undefined): void {
    const key = keyOf(command.identity.actorId, command.commandId);
    const earlier = this.executions.get(key);
    if (earlier !== undefined) {
      const what = fingerprint === undefined ? `deadline ${command.commandId} fired twice` : `command ${command.commandId} of ${command.identity.actorId} executed twice`;
      this.violations.report(`${what}: ${earlier.partition === "identity" ? "identity" : `partition-${earlier.partition}`} message ${earlier.streamSequence} and partition-${partition} message ${message.streamSequence}`);
      return;
    }
    const marketId = marketIdOfCommand(command);
    const market = marketId === undefined ? undefined : this.markets.get(marketId);
    const outcome = handleCommand(market?.agg, command, tableStorage);
    if (outcome.recordSequence !== undefined && marketId !== undefined && outcome.aggregate !== undefined) {
      if (market === undefined) this.markets.set(marketId, { agg: outcome.aggregate, commands: [command], partition });
      else {
        market.agg = outcome.aggregate;
        market.commands.push(command);
      }
    }
    const reply = replyText(outcome.reply.ok ? { ok: true, json: JSON.stringify(outcome.reply.result) } : { ok: false, code: outcome.reply.rejection.code, message: outcome.reply.rejection.message });
    this.executions.set(key, { partition, streamSequence: message.streamSequence, committedAtMs: message.committedAtMs, fingerprint, reply });
  }
}
