/** Builders and helpers for runtime tests: real files in temp dirs, a manual clock, real engine. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { buildCommand, buildIdentity, type Command, type CommandIdentity, type UncheckedMechanismSelection } from "../../engine/index.js";
import { completeReplayWork } from "../../engine/pool-worker/replay-work.js";
import { commandRequest, jsonText, type CommandRequest, type ShardReply, type ShardResponse } from "../../engine/shard-protocol/shard-protocol.js";

export const T0 = Date.parse("2026-03-01T12:00:00.000Z");

export function tempDir(prefix: string): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(path.join(tmpdir(), `ms-${prefix}-`));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

const self = (principalId: string): CommandIdentity => buildIdentity({ principalId, actorId: principalId });
let counter = 0;
const nextId = () => `cmd-${++counter}`;

export function request(command: Command, fingerprint = `fp-${command.commandId}`): CommandRequest {
  return commandRequest(command, fingerprint);
}

/** Commands as clients send them, built by the declared layouts (as the gateway builds them). */
export const commands = {
  create(principalId: string, marketId: string, mechanism: UncheckedMechanismSelection, commandId = nextId()): Command {
    const subject = { schema: "slot.v1", data: { dock: 7 } };
    return buildCommand("market.create_draft", { marketId, subject, mechanism, commandId, identity: self(principalId), occurredAtMs: 0 });
  },
  publish(principalId: string, marketId: string, expectedVersion = 1, commandId = nextId()): Command {
    return buildCommand("market.publish", { marketId, expectedVersion, commandId, identity: self(principalId), occurredAtMs: 0 });
  },
  claim(principalId: string, marketId: string, commandId = nextId()): Command {
    return buildCommand("direct_claim.submit", { marketId, commandId, identity: self(principalId), occurredAtMs: 0 });
  },
  bid(principalId: string, marketId: string, amountMinor: number, commandId = nextId()): Command {
    return buildCommand("sealed_auction.submit_bid", { marketId, amountMinor, currency: "EUR", commandId, identity: self(principalId), occurredAtMs: 0 });
  },
  confirm(principalId: string, commitmentId: string, commandId = nextId()): Command {
    return buildCommand("commitment.confirm", { commitmentId, commandId, identity: self(principalId), occurredAtMs: 0 });
  },
  decline(principalId: string, commitmentId: string, commandId = nextId()): Command {
    return buildCommand("commitment.decline", { commitmentId, commandId, identity: self(principalId), occurredAtMs: 0 });
  },
};

export const directClaim = (config: Record<string, unknown>): UncheckedMechanismSelection => ({ presetId: "direct-claim.v1", config });
export const auction = (config: Record<string, unknown>): UncheckedMechanismSelection => ({ presetId: "sealed-forward-auction.v1", config });

/** The parsed JSON of a successful reply; throws with the code otherwise. */
/** A shard response's reply; replay work a shard handed back is finished here, in-process (the service uses its worker pool). */
export function replyOf(response: ShardResponse | undefined): ShardReply {
  if (response === undefined) throw new Error("no response");
  return response.kind === "replay" ? completeReplayWork(response.work) : response.reply;
}

export function okJson(response: ShardResponse | undefined): any {
  const reply = replyOf(response);
  if (!reply.ok) throw new Error(`expected success, got ${reply.code}: ${reply.message}`);
  return JSON.parse(jsonText(reply.json));
}

export function codeOf(response: ShardResponse | undefined): string {
  const reply = replyOf(response);
  return reply.ok ? "ok" : reply.code;
}
