/**
 * One command per (actor, commandId), whoever executes it: an identical retry gets the original
 * reply (also while the first is still in flight, and after a restart), other content is the
 * spec's conflict. The embedded runtime and a cluster node's owned partitions both submit through
 * this; they differ only in how a command is executed and where an old reply is found.
 */
import type { Command } from "../rules/types/command.js";
import type { CommandLocation, IdempotencyIndex } from "../idempotency/index.js";
import type { CommandResponse, ShardReply } from "../shard-protocol/shard-protocol.js";
import { errorReply } from "../shard-protocol/shard-protocol.js";

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

const CONFLICT: SubmitResult = Object.freeze({ disposition: "replayed", reply: IDEMPOTENCY_CONFLICT });

const replayed = (reply: ShardReply): SubmitResult => ({ disposition: "replayed", reply });

/**
 * Claims the command's key and answers by what the index says. Promise chains rather than an async
 * function: a fresh claim (every claim of a storm) then costs two callbacks, not a suspended frame
 * kept alive, with its promises, until the shard's commit.
 */
export function submitOnce(index: IdempotencyIndex, executor: Executor, command: Command, fingerprint: string): Promise<SubmitResult> {
  const claim = index.claim(command.identity.actorId, command.commandId, fingerprint);
  switch (claim.kind) {
    case "conflict":
      return Promise.resolve(CONFLICT);
    case "replay":
      return executor.replyAt(claim.location).then(replayed);
    case "pending":
      return claim.settled.then((location) => {
        if (location === undefined) return submitOnce(index, executor, command, fingerprint); // the first attempt failed before logging: try afresh
        if (!claim.sameContent) return CONFLICT;
        return executor.replyAt(location).then(replayed);
      });
    case "fresh": {
      let executing: Promise<{ owner: number; response: CommandResponse }>;
      try {
        executing = executor.execute(command, fingerprint);
      } catch (error) {
        claim.abandon();
        return Promise.reject(error);
      }
      return executing.then(
        (executed): SubmitResult => {
          claim.complete({ owner: executed.owner, position: executed.response.position });
          return { disposition: "executed", reply: executed.response.reply };
        },
        (error: unknown) => {
          claim.abandon();
          throw error;
        },
      );
    }
  }
}
