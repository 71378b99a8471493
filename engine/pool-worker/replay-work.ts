/**
 * Finishing a shard's ReplayWork (engine/shard-protocol/shard-protocol.ts) off the shard thread: take the market's
 * logged commands from the work's source (read through a view of the shard's log files, or the
 * payloads the shard read from its journal), replay them through the engine, and render the record
 * or the reply. Both sources end in the same decode and the same replay. A pure function of the
 * journal's committed entries and the market image, so the answer is the one the shard would have
 * given itself; runs on a worker pool thread (engine/pool-worker/pool-tasks.ts) in the service, in-process
 * in tests.
 */
import { buildMarketRecord } from "../record.js";
import { applyCommand, handleCommand } from "../rules/handle-command.js";
import type { MarketAggregate } from "../rules/state/state.js";
import type { Command } from "../rules/types/command.js";
import { LogView, type LogReadView } from "../../storage/index.js";
import { float64sOf } from "../runtime/float64-bytes.js";
import { decodeLoggedCommand } from "../log/logged-command.js";
import type { LogProof } from "../audit/log-proofs.js";
import { cachedProofFromPayloads, cachedProofFromView, type ProofEntriesWanted } from "../audit/cached-log-proofs.js";
import { threadProofCache, type ProofTreeCache } from "../audit/proof-tree-cache.js";
import { base64UrlEncode } from "@market-service/client/wire";
import { hashToHex } from "@market-service/client/audit";
import { NODE_TREE_HASHING } from "../audit/node-tree-hashing.js";
import { forEachPayload, payloadCount } from "../runtime/entry-payloads.js";
import { errorReply, okReply, type ReplaySource, type ReplayWork, type ShardReply } from "../shard-protocol/shard-protocol.js";
import { decodeMarketImage } from "../runtime/shard-snapshot.js";
import { tableStorage } from "../store/market-storage.js";

/** What a replay answers: JSON text, or the refusal the command got. */
export type ReplayReply = { ok: true; json: string } | Extract<ShardReply, { ok: false }>;

/** The logged commands at `positions` (in record order), from the work's source. */
function commandsAt(source: ReplaySource, positions: ArrayLike<number>): Command[] {
  const commands: Command[] = new Array<Command>(positions.length);
  const take = (payload: Uint8Array, i: number): void => {
    commands[i] = decodeLoggedCommand(payload).c;
  };
  switch (source.from) {
    case "log":
      readFrames(source.log, positions, take);
      break;
    case "payloads":
      if (payloadCount(source) !== positions.length) throw new Error(`the replay carries ${payloadCount(source)} payloads for ${positions.length} commands`);
      forEachPayload(source, take);
      break;
    default: {
      const unknown: never = source;
      throw new Error(`unknown replay source ${JSON.stringify(unknown)}`);
    }
  }
  return commands;
}

function readFrames(log: LogReadView, positions: ArrayLike<number>, take: (payload: Uint8Array, i: number) => void): void {
  const view = new LogView(log);
  try {
    view.readManyAt(positions, (frame, i) => take(frame.payload, i));
  } finally {
    view.close();
  }
}

/** The reply the last of `commands` got: the ones before it only change state (applyCommand). */
function replyOfLast(commands: readonly Command[]): ReplayReply {
  const last = commands[commands.length - 1];
  if (last === undefined) throw new Error("a reply replay needs at least one command");
  let agg: MarketAggregate | undefined;
  for (let i = 0; i < commands.length - 1; i += 1) agg = applyCommand(agg, commands[i] as Command, tableStorage).aggregate;
  const { reply } = handleCommand(agg, last, tableStorage);
  return reply.ok ? okReply(JSON.stringify(reply.result)) : errorReply(reply.rejection.code, reply.rejection.message);
}

export function completeReplayWork(work: ReplayWork): ReplayReply {
  switch (work.kind) {
    case "record": {
      const live = decodeMarketImage(work.market);
      return okReply(JSON.stringify(buildMarketRecord(commandsAt(work.source, live.positions), live.agg)));
    }
    case "reply":
      return replyOfLast(commandsAt(work.source, float64sOf(work.positions)));
    case "proof": {
      const proof = completeProofWork(work, threadProofCache());
      // Only a pool thread is asked again for entries (engine/runtime/shard-answers.ts); in-process, the thread's
      // cache is the one the shard's earlier proofs filled.
      if ("wantedAfter" in proof) throw new Error(`the proof of ${work.logId} needs the entries after ${proof.wantedAfter}; the shard sent those after ${work.after}`);
      return okReply(proofJson(proof));
    }
    default: {
      const unknown: never = work;
      throw new Error(`unknown replay work ${JSON.stringify(unknown)}`);
    }
  }
}

/**
 * The proof a "proof" work asks for, from whichever source its entries come, through `cache`; or
 * which entries this thread lacks (the shard sent fewer than its kept tree needs).
 */
export function completeProofWork(work: Extract<ReplayWork, { kind: "proof" }>, cache: ProofTreeCache): LogProof | ProofEntriesWanted {
  const source = work.source;
  const anchor = work.anchor ?? undefined;
  if (source.from === "log") return cachedProofFromView(cache, source.log, work.logId, work.proof, anchor);
  const payloads: Uint8Array[] = [];
  forEachPayload(source, (payload) => payloads.push(payload));
  return cachedProofFromPayloads(cache, work.logId, { after: work.after, payloads, entry: work.entry ?? undefined }, work.proof, anchor);
}

/**
 * A proof as the gateway takes it: the endpoint's members (docs/proofs.md, "Proof endpoints"), and
 * for an inclusion proof the proven leaf's hash and the entry's payload (unpadded base64url) under
 * `entry`, which the gateway shows or withholds by who asks (engine/audit/entry-visibility.ts).
 */
export function proofJson(proof: LogProof): string {
  if (proof.type === "consistency") return JSON.stringify(proof.proof);
  return JSON.stringify({ ...proof.proof, leafHash: hashToHex(NODE_TREE_HASHING.leafHash(proof.entry)), entry: base64UrlEncode(proof.entry) });
}
