/** Spec §3.2 and decision 3: confirm, decline and expire commitments. */
import { accept, reject, type Decision, type DomainEvent, type Rejected } from "../decision/decision.js";
import { eventEmitter } from "../decision/emit.js";
import { isoFromMs, msOfNormalized } from "../common/time.js";
import { assert, assertNever } from "../common/assert.js";
import { findCommitment, type MarketAggregate } from "../state/state.js";
import { SYSTEM_IDENTITY, type CommitmentCommand, type ConfirmCommitmentCommand, type DeclineCommitmentCommand, type ExpireCommitmentCommand } from "../types/command.js";
import { type Commitment, type CommitmentStateChangedEventData, DIRECT_CLAIM_PRESET, SEALED_AUCTION_PRESET } from "@market-service/client/wire";
import { emitWinnerReleased } from "../sealed-auction/decide.js";
import { NO_PRINCIPALS } from "../state/confirmations.js";

function notFound(command: CommitmentCommand): Rejected {
  return reject("commitment_not_found", `commitment ${JSON.stringify(command.commitmentId)} was not found`);
}

function lookup(agg: MarketAggregate | undefined, command: CommitmentCommand): Commitment | undefined {
  return agg === undefined ? undefined : findCommitment(agg, command.commitmentId);
}

function expiresAtMsOf(commitment: Commitment): number {
  assert(commitment.expiresAt !== undefined, "an awaiting commitment has a deadline");
  return msOfNormalized(commitment.expiresAt);
}

function notAwaiting(commitment: Commitment): Rejected {
  return reject("invalid_commitment_transition", `commitment is ${commitment.state}; it is no longer awaiting confirmations`);
}

function deadlinePassed(commitment: Commitment, occurredAtMs: number): Rejected {
  return reject(
    "invalid_commitment_transition",
    `the confirmation period ended at ${commitment.expiresAt ?? "?"} (command time ${isoFromMs(occurredAtMs)})`,
  );
}

/** The state-change payload (§6.2) for a commitment moving to `state`. */
function stateData(
  commitment: Commitment,
  state: Commitment["state"],
  confirmedPrincipalIds: string[],
): CommitmentStateChangedEventData {
  return {
    commitmentId: commitment.id,
    state,
    requiredConfirmationPrincipalIds: commitment.requiredConfirmationPrincipalIds ?? NO_PRINCIPALS,
    confirmedPrincipalIds,
    ...(commitment.expiresAt === undefined ? {} : { expiresAt: commitment.expiresAt }),
  };
}

export function decideConfirm(agg: MarketAggregate | undefined, command: ConfirmCommitmentCommand): Decision {
  const commitment = lookup(agg, command);
  if (agg === undefined || commitment === undefined) return notFound(command);
  const principalId = command.identity.principalId;
  // Parties learn about the commitment's state first (decision D5: a commitment created committed
  // cannot be confirmed → 409); anyone else is refused without learning anything.
  if (principalId !== commitment.creatorPrincipalId && principalId !== commitment.participantPrincipalId) {
    return reject("principal_not_authorized", "principal is not a party to this commitment");
  }
  if (commitment.state !== "awaiting_confirmations") return notAwaiting(commitment);
  if (command.occurredAtMs >= expiresAtMsOf(commitment)) return deadlinePassed(commitment, command.occurredAtMs);
  const required = commitment.requiredConfirmationPrincipalIds ?? NO_PRINCIPALS;
  if (!required.includes(principalId)) {
    return reject("principal_not_authorized", "principal is not required to confirm this commitment");
  }
  const confirmed = commitment.confirmedPrincipalIds ?? NO_PRINCIPALS;
  if (confirmed.includes(principalId)) {
    return reject("invalid_commitment_transition", "principal has already confirmed this commitment");
  }
  // Confirming changes the commitment only: the market version stays (decision 1).
  const events: DomainEvent[] = [];
  const emit = eventEmitter(agg, command, agg.market.id, agg.market.version, events);
  const nowConfirmed = [...confirmed, principalId];
  emit("commitment.confirmation_recorded", stateData(commitment, "awaiting_confirmations", nowConfirmed));
  if (required.every((id) => nowConfirmed.includes(id))) {
    emit("commitment.committed", stateData(commitment, "committed", nowConfirmed));
  }
  return accept(events);
}

/** Decline or expire: the commitment ends and the mechanism releases what it held. */
function decideRelease(
  agg: MarketAggregate,
  command: DeclineCommitmentCommand | ExpireCommitmentCommand,
  commitment: Commitment,
): Decision {
  const events: DomainEvent[] = [];
  const emit = eventEmitter(agg, command, agg.market.id, agg.market.version + 1, events);
  const ended = command.type === "commitment.decline" ? "declined" : "expired";
  emit(`commitment.${ended}`, stateData(commitment, ended, commitment.confirmedPrincipalIds ?? NO_PRINCIPALS));
  const presetId = agg.market.mechanism.presetId;
  switch (presetId) {
    case DIRECT_CLAIM_PRESET:
      break; // capacity returns through evolve of the declined/expired event
    case SEALED_AUCTION_PRESET:
      emitWinnerReleased(agg, command, emit, commitment);
      break;
    default:
      assertNever(presetId, "mechanism preset");
  }
  return accept(events);
}

export function decideDecline(agg: MarketAggregate | undefined, command: DeclineCommitmentCommand): Decision {
  const commitment = lookup(agg, command);
  if (agg === undefined || commitment === undefined) return notFound(command);
  const principalId = command.identity.principalId;
  if (principalId !== commitment.creatorPrincipalId && principalId !== commitment.participantPrincipalId) {
    return reject("principal_not_authorized", "only the creator or the participant principal can decline this commitment");
  }
  if (commitment.state !== "awaiting_confirmations") return notAwaiting(commitment);
  if (command.occurredAtMs >= expiresAtMsOf(commitment)) return deadlinePassed(commitment, command.occurredAtMs);
  return decideRelease(agg, command, commitment);
}

export function decideExpire(agg: MarketAggregate | undefined, command: ExpireCommitmentCommand): Decision {
  if (command.identity.actorId !== SYSTEM_IDENTITY.actorId) {
    return reject("actor_not_authorized", "commitments are expired by the service at expiresAt");
  }
  const commitment = lookup(agg, command);
  if (agg === undefined || commitment === undefined) return notFound(command);
  if (commitment.state !== "awaiting_confirmations") return notAwaiting(commitment);
  if (command.occurredAtMs < expiresAtMsOf(commitment)) {
    return reject("invalid_commitment_transition", `the confirmation period ends at ${commitment.expiresAt ?? "?"}`);
  }
  return decideRelease(agg, command, commitment);
}
