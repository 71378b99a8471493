/**
 * Finishing a shard's ReplayWork (shard-protocol.ts) off the shard thread: read the market's
 * logged commands through a view of the shard's log, replay them through the engine, and render
 * the record or the reply. A pure function of the log's committed bytes and the market image, so
 * the answer is the one the shard would have given itself; runs on a worker pool thread
 * (engine/pool/pool-tasks.ts) in the service, in-process in tests.
 */
import { buildMarketRecord } from "../record.js";
import { applyCommand, handleCommand } from "../rules/handle-command.js";
import type { MarketAggregate } from "../rules/state.js";
import type { Command } from "../rules/types/command.js";
import { LogView, type LogReadView } from "../../storage/index.js";
import { float64sOf } from "./float64-bytes.js";
import { decodeLoggedCommand } from "./logged-command.js";
import { errorReply, okReply, type ReplayWork, type ShardReply } from "./shard-protocol.js";
import { decodeMarketImage } from "./shard-snapshot.js";
import { tableStorage } from "../store/market-storage.js";

/** What a replay answers: JSON text, or the refusal the command got. */
export type ReplayReply = { ok: true; json: string } | Extract<ShardReply, { ok: false }>;

function commandsAt(log: LogReadView, positions: ArrayLike<number>): Command[] {
  const commands: Command[] = new Array<Command>(positions.length);
  const view = new LogView(log);
  try {
    view.readManyAt(positions, (frame, i) => {
      commands[i] = decodeLoggedCommand(frame.payload).c;
    });
  } finally {
    view.close();
  }
  return commands;
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
      return okReply(JSON.stringify(buildMarketRecord(commandsAt(work.log, live.positions), live.agg)));
    }
    case "reply":
      return replyOfLast(commandsAt(work.log, float64sOf(work.positions)));
    default: {
      const unknown: never = work;
      throw new Error(`unknown replay work ${JSON.stringify(unknown)}`);
    }
  }
}
