/**
 * The identity part of a seed's workload: the operator provisions principals (each with its own
 * actor and key) at any node, a principal issues delegations to other principals' actors and may
 * revoke them, all through the identity store of whichever node a client reaches, with the same
 * retries, twins and resends as market commands (workload.ts). Every node appends to and follows
 * the one identity stream; the checks compare every reply with the stream's and every node's
 * identity state with the stream's fold.
 */
import type { IdentityRequest } from "../../engine/identity/store.js";
import { AUTHORITY_SCOPES, type AuthorityScope } from "@market-service/client/wire";
import type { ShardReply } from "../../engine/shard-protocol/shard-protocol.js";
import type { Clients, Intent } from "./client.js";
import { publicKeyFor } from "./identity-commands.js";
import { OPERATOR } from "./node/sim-node.js";
import type { Random } from "./random.js";

export interface IdentityPlan {
  /** Principals the operator provisions (none: a seed without identity commands). */
  readonly principals: readonly string[];
  readonly provisionAtMs: readonly number[];
  /** How many delegations each provisioned principal tries to issue. */
  readonly delegationsEach: number;
  readonly revokeRate: number;
}

export function drawIdentityPlan(random: Random, activeMs: number): IdentityPlan {
  const count = random.pick([0, 0, 2, 3, 4]);
  const principals = Array.from({ length: count }, (_, i) => `org-${i + 1}`);
  return {
    principals,
    provisionAtMs: principals.map(() => random.int(0, Math.max(0, activeMs - 1_000))),
    delegationsEach: random.int(1, 2),
    revokeRate: random.pick([0, 0.5, 1]),
  };
}

/** What the identity workload needs of the market workload: its clock, its way to send an intent. */
export interface IdentityDispatch {
  at(atMs: number, run: () => void): void;
  later(delayMs: number, run: () => void): void;
  commandId(actor: string): string;
  dispatch(intent: Intent): void;
}

export class IdentityWorkload {
  private readonly provisioned: string[] = [];
  private delegations = 0;

  constructor(
    private readonly plan: IdentityPlan,
    private readonly random: Random,
    private readonly clients: Clients,
    private readonly via: IdentityDispatch,
  ) {}

  start(): void {
    this.plan.principals.forEach((principal, i) => this.via.at(this.plan.provisionAtMs[i] ?? 0, () => this.provision(principal)));
  }

  private send(actorId: string, request: IdentityRequest, label: string, onReply?: (reply: ShardReply) => void): void {
    this.via.dispatch(this.clients.identityIntent(actorId, request, label, onReply));
  }

  private provision(principal: string): void {
    const body = { commandId: this.via.commandId(OPERATOR), principalId: principal, actorId: principal, keyId: `key-${principal}`, publicKey: publicKeyFor(principal) };
    this.send(OPERATOR, { operation: "identity.provision", body }, `provision ${principal}`, (reply) => {
      if (!reply.ok) return;
      this.provisioned.push(principal);
      for (let i = 0; i < this.plan.delegationsEach; i++) this.via.later(this.random.int(0, 2_000), () => this.delegate(principal));
    });
  }

  /** `principal` lets another provisioned principal's actor act for it (if there is one yet). */
  private delegate(principal: string): void {
    const others = this.provisioned.filter((other) => other !== principal);
    if (others.length === 0) return;
    const delegate = this.random.pick(others);
    this.delegations += 1;
    const delegationId = `d-${this.delegations}`;
    const scopes = AUTHORITY_SCOPES.filter(() => this.random.chance(0.5));
    const body = { commandId: this.via.commandId(principal), delegationId, principalId: principal, delegateActorId: delegate, scopes: scopes.length > 0 ? scopes : (["market:claim"] satisfies AuthorityScope[]) };
    this.send(principal, { operation: "delegation.issue", body }, `delegate ${delegationId} of ${principal} to ${delegate}`, (reply) => {
      if (!reply.ok || !this.random.chance(this.plan.revokeRate)) return;
      this.via.later(this.random.int(0, 3_000), () =>
        this.send(principal, { operation: "delegation.revoke", delegationId, body: { commandId: this.via.commandId(principal), principalId: principal } }, `revoke ${delegationId} of ${principal}`),
      );
    });
  }
}
