/**
 * One command per (actor, commandId), whoever executes it: an identical retry gets the original
 * reply (also while the first is still in flight, and after a restart), other content is the
 * spec's conflict. The embedded runtime and a cluster node's owned partitions both submit through
 * this; they differ only in how a command is executed and where an old reply is found.
 */
import type { Command } from "../rules/types/command.js";
import type { CommandLocation, IdempotencyIndex } from "../idempotency/index.js";
import type { CommandResponse, ShardReply } from "./shard-protocol.js";
import { errorReply } from "./shard-protocol.js";

export interface SubmitResult {
  /** "replayed": an identical earlier command's reply was returned. */
  disposition: "executed" | "replayed";
  reply: ShardReply;
}

export interface Executor {
  /** Executes the command on its shard; resolves once it is durable, with where it was logged. */
  execute(command: Command, fingerprint: string): Promise<{ owner: number; response: CommandResponse }>;
  /** The reply the command logged at `location` got. */
  replyAt(location: CommandLocation): Promise<ShardReply>;
}

/** The spec's answer to a commandId reused with other content. */
export const IDEMPOTENCY_CONFLICT: ShardReply = errorReply("idempotency_conflict", "commandId was already used by this actor with different content");

export async function submitOnce(index: IdempotencyIndex, executor: Executor, command: Command, fingerprint: string): Promise<SubmitResult> {
  for (;;) {
    const claim = index.claim(command.identity.actorId, command.commandId, fingerprint);
    switch (claim.kind) {
      case "conflict":
        return { disposition: "replayed", reply: IDEMPOTENCY_CONFLICT };
      case "replay":
        return { disposition: "replayed", reply: await executor.replyAt(claim.location) };
      case "pending": {
        const location = await claim.settled;
        if (location === undefined) continue; // the first attempt failed before logging: try afresh
        if (!claim.sameContent) return { disposition: "replayed", reply: IDEMPOTENCY_CONFLICT };
        return { disposition: "replayed", reply: await executor.replyAt(location) };
      }
      case "fresh": {
        let executed;
        try {
          executed = await executor.execute(command, fingerprint);
        } catch (error) {
          claim.abandon();
          throw error;
        }
        claim.complete({ owner: executed.owner, position: executed.response.position });
        return { disposition: "executed", reply: executed.response.reply };
      }
    }
  }
}
