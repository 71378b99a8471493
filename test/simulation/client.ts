/**
 * The clients of the simulated cluster: each command (an intent: a market command, or an identity
 * command) is sent to a node, as an HTTP request would be after the gateway validated and
 * authenticated it, and sent again, with the same
 * commandId, to another node whenever the answer is a 503 or none comes (the node crashed or
 * paused, NATS is out of reach). Every reply, even one that comes late to an attempt given up on,
 * goes to the ledger, which checks it against the streams.
 */
import type { Command } from "../../engine/rules/types/command.js";
import { UnavailableError } from "../../engine/runtime/unavailable.js";
import { jsonText, type ShardReply } from "../../engine/shard-protocol/shard-protocol.js";
import { fingerprintOfCommand } from "../../gateway/api/market-api.js";
import type { IdentityRequest } from "../../engine/identity/store.js";
import { identityFingerprint, identityReplyAsShardReply } from "./identity-commands.js";
import type { Random } from "./random.js";
import { Actor, type Scheduler } from "./scheduler.js";
import type { Trace } from "./trace.js";
import type { ClientLedger, SentCommand } from "./checks/client-ledger.js";
import type { SimNode } from "./node/sim-node.js";
import type { Violations } from "./checks/violations.js";

/** How long a client waits for an answer before it gives an attempt up (longer than a forwarded request's 5 s). */
const CLIENT_TIMEOUT_MS = 6_000;

export interface Intent extends SentCommand {
  /** One attempt at a node's process (as it was when the request reached it): the reply, or a rejection (UnavailableError: a 503). */
  readonly submitAt: (process: NodeProcess) => Promise<ShardReply>;
  /** The first definite answer (anything but a 503 or no answer). */
  reply: ShardReply | undefined;
  attempts: number;
  readonly onReply: ((reply: ShardReply) => void) | undefined;
}

/** What of a node's process answers a client: its cluster runtime and its identity store. */
interface NodeProcess {
  readonly runtime: NonNullable<SimNode["runtime"]>;
  readonly identity: NonNullable<SimNode["identity"]>;
}

export function describeReply(reply: ShardReply): string {
  if (!reply.ok) return reply.code;
  const text = jsonText(reply.json);
  return text.length <= 60 ? text : `ok (${text.length} chars)`;
}

export class Clients {
  readonly actor = new Actor("client");
  private readonly open = new Set<Intent>();
  private counter = 0;
  /** Intents sent (the trace's summary). */
  sent = 0;

  constructor(
    private readonly scheduler: Scheduler,
    private readonly random: Random,
    private readonly trace: Trace,
    private readonly nodes: readonly SimNode[],
    private readonly ledger: ClientLedger,
    private readonly violations: Violations,
  ) {}

  /** Commands sent and not definitely answered yet. */
  get pending(): number {
    return this.open.size;
  }

  pendingLabels(): string[] {
    return [...this.open].map((intent) => `${intent.label} (${intent.commandId}, ${intent.attempts} attempts)`);
  }

  intent(command: Command, label: string, onReply?: (reply: ShardReply) => void): Intent {
    this.counter += 1;
    const fingerprint = fingerprintOfCommand(command);
    const submitAt = ({ runtime }: NodeProcess): Promise<ShardReply> => runtime.submit(structuredClone(command), fingerprint).then(({ reply }) => reply);
    return { actorId: command.identity.actorId, commandId: command.commandId, fingerprint, label, submitAt, reply: undefined, attempts: 0, onReply };
  }

  /** An identity command of `actorId` (authenticated as the gateway would), answered by the node's identity store. */
  identityIntent(actorId: string, request: IdentityRequest, label: string, onReply?: (reply: ShardReply) => void): Intent {
    this.counter += 1;
    const submitAt = async ({ identity }: NodeProcess): Promise<ShardReply> => {
      const reply = await identity.execute(actorId, structuredClone(request));
      // The store's temporary failure, which the gateway answers 503 + Retry-After.
      if (!reply.ok && reply.code === "service_unavailable") throw new UnavailableError(reply.message);
      return identityReplyAsShardReply(reply);
    };
    return { actorId, commandId: request.body.commandId, fingerprint: identityFingerprint(request), label, submitAt, reply: undefined, attempts: 0, onReply };
  }

  /** What to do once an intent is answered, after its own onReply (the workload's resend). */
  private readonly afterReply = new Map<Intent, () => void>();

  /** Sends `intent` until it is definitely answered; then `afterReply`. */
  submit(intent: Intent, afterReply?: () => void): void {
    this.sent += 1;
    this.open.add(intent);
    if (afterReply !== undefined) this.afterReply.set(intent, afterReply);
    this.attempt(intent, undefined);
  }

  /** Sends an already answered command once more, to `node` (a client retrying although it had its answer). */
  resend(intent: Intent, node: SimNode): void {
    this.send(intent, node, () => undefined);
  }

  private attempt(intent: Intent, avoid: SimNode | undefined): void {
    if (intent.reply !== undefined) return;
    const candidates = this.nodes.filter((node) => node !== avoid);
    const node = this.random.pick(candidates.length > 0 ? candidates : this.nodes);
    intent.attempts += 1;
    let done = false;
    const retry = (): void => {
      if (done) return;
      done = true;
      this.scheduler.after(this.random.int(100, 600), this.actor, () => this.attempt(intent, node));
    };
    const timer = this.scheduler.after(CLIENT_TIMEOUT_MS, this.actor, () => {
      if (done) return;
      this.trace.add("client", `${intent.label}: no answer from ${node.name} within ${CLIENT_TIMEOUT_MS} ms`);
      retry();
    });
    this.send(intent, node, (reply) => {
      if (reply === undefined) {
        timer.cancel();
        retry();
        return;
      }
      if (done) return;
      done = true;
      timer.cancel();
      if (intent.reply === undefined) {
        intent.reply = reply;
        this.open.delete(intent);
        intent.onReply?.(reply);
        const after = this.afterReply.get(intent);
        this.afterReply.delete(intent);
        after?.();
      }
    });
  }

  /**
   * One attempt at `node`: `answered` gets the definite reply, or undefined for a 503 or a refused
   * connection (nothing if the node never answers).
   */
  private send(intent: Intent, node: SimNode, answered: (reply: ShardReply | undefined) => void): void {
    const label = `${intent.label} → ${node.name}`;
    const back = (run: () => void): void => void this.scheduler.after(this.random.int(0, 2), this.actor, run);
    if (node.state !== "up" || node.runtime === undefined || node.identity === undefined) {
      back(() => {
        this.trace.add("client", `${label}: refused (the node is ${node.state})`);
        answered(undefined);
      });
      return;
    }
    const process: NodeProcess = { runtime: node.runtime, identity: node.identity };
    this.scheduler.after(this.random.int(0, 2), node.actor, () => {
      intent.submitAt(process).then(
        (reply) =>
          back(() => {
            this.trace.add("client", `${label}: ${describeReply(reply)}`);
            this.ledger.replied(intent, node.name, reply);
            answered(reply);
          }),
        (error: unknown) =>
          back(() => {
            if (error instanceof UnavailableError) {
              this.trace.add("client", `${label}: 503 ${error.message}`);
              answered(undefined);
              return;
            }
            // The gateway would answer 500: never acceptable.
            this.violations.report(`${node.name} failed ${intent.label} (${intent.commandId}) with an unexpected error (a 500): ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
          }),
      );
    });
  }
}
