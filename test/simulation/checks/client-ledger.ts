/**
 * Every reply a client gets for a command, checked against the streams the moment it arrives:
 *
 * - no reply before its quorum ack: a reply other than a conflict is given only for a command a
 *   quorum of the NATS servers has stored (the stream auditor has seen it committed);
 * - an idempotent retry gets the original reply: whichever node answers, and however often, the
 *   reply to a command is the reply the stream's replay gives for it, byte for byte (which also
 *   holds the acknowledged replies to the rules: no capacity exceeded, no principal holding two
 *   places, in any reply a client was given);
 * - content that differs from what was logged under a commandId is the spec's conflict, never
 *   executed; a conflict is never the answer to the content that was logged (checked at the end).
 */
import { jsonText, type ShardReply } from "../../../engine/shard-protocol/shard-protocol.js";
import { keyOf, replyText, type StreamAuditor } from "./stream-auditor.js";
import type { Violations } from "./violations.js";

export interface SentCommand {
  readonly actorId: string;
  readonly commandId: string;
  readonly fingerprint: string;
  readonly label: string;
}

export class ClientLedger {
  private readonly conflicts: Array<{ command: SentCommand; node: string }> = [];
  /** Replies checked (the trace's summary). */
  checked = 0;

  constructor(
    private readonly auditor: StreamAuditor,
    private readonly violations: Violations,
  ) {}

  /** A definite reply (not a 503) from `node`. */
  replied(command: SentCommand, node: string, reply: ShardReply): void {
    this.checked += 1;
    if (!reply.ok && reply.code === "idempotency_conflict") {
      this.conflicts.push({ command, node });
      return;
    }
    const execution = this.auditor.executions.get(keyOf(command.actorId, command.commandId));
    const text = replyText(reply.ok ? { ok: true, json: jsonText(reply.json) } : reply);
    if (execution === undefined) {
      this.violations.report(`${node} answered ${command.label} (${command.commandId}) before a quorum stored it: ${shorten(text)}`);
    } else if (execution.fingerprint !== command.fingerprint) {
      this.violations.report(`${node} answered ${command.label} (${command.commandId}), whose content differs from the command logged under that id, with ${shorten(text)} instead of idempotency_conflict`);
    } else if (execution.reply !== text) {
      this.violations.report(`${node} answered ${command.label} (${command.commandId}) otherwise than the stream's replay:\n  got    ${shorten(text)}\n  replay ${shorten(execution.reply)}`);
    }
  }

  /** At the end: a conflict answered content that was in fact logged under its id. */
  checkConflicts(): void {
    for (const { command, node } of this.conflicts) {
      const execution = this.auditor.executions.get(keyOf(command.actorId, command.commandId));
      if (execution !== undefined && execution.fingerprint === command.fingerprint) {
        this.violations.report(`${node} answered ${command.label} (${command.commandId}) idempotency_conflict, though that very content is what was logged under the id`);
      }
    }
  }
}

function shorten(text: string): string {
  return text.length <= 240 ? text : `${text.slice(0, 240)}…`;
}
