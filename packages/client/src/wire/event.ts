/** Spec §6: the event envelope and every payload of §6.2. */
import type { SealedAuctionResolution } from "./auction.js";
import type { CommitmentState } from "./commitment.js";
import type { MechanismSelection, MechanismState } from "./market.js";
import type {
  ActorId,
  AuthorityRef,
  CommandId,
  CommandIdentity,
  DateTime,
  GeneratedId,
  MarketId,
  PositiveSafeUint64,
  PositiveUint32,
  PrincipalId,
  Subject,
} from "./shared.js";

export interface EventEnvelope<Type extends string, Data> {
  /** Durable order within the market record (always present from this service). */
  sequence?: PositiveSafeUint64;
  id: GeneratedId;
  type: Type;
  marketId: MarketId;
  /** Market version after the command that emitted this event. */
  marketVersion: PositiveSafeUint64;
  commandId: CommandId;
  principalId: PrincipalId;
  actorId: ActorId;
  authorityRef?: AuthorityRef;
  /** Server-stamped command time. */
  occurredAt: DateTime;
  data: Data;
}

export interface DraftCreatedData {
  creator: CommandIdentity;
  subject: Subject;
  mechanism: MechanismSelection;
  mechanismState: MechanismState;
}
export interface PublishedData {
  previousState: "draft";
  state: "open";
}
export interface DirectClaimAcceptedData {
  commitmentId: GeneratedId;
  /** Allocation after this claim. */
  allocated: PositiveUint32;
  capacity: PositiveUint32;
}
export interface BidSubmittedData {
  bidId: GeneratedId;
  /** Accepted bids after this one. */
  bidCount: PositiveUint32;
}
export interface CommitmentStateChangedEventData {
  commitmentId: GeneratedId;
  state: CommitmentState;
  requiredConfirmationPrincipalIds?: PrincipalId[];
  confirmedPrincipalIds?: PrincipalId[];
  expiresAt?: DateTime;
}

export type DraftCreatedEvent = EventEnvelope<"market.draft_created", DraftCreatedData>;
export type PublishedEvent = EventEnvelope<"market.published", PublishedData>;
export type DirectClaimAcceptedEvent = EventEnvelope<"direct_claim.accepted", DirectClaimAcceptedData>;
export type BidSubmittedEvent = EventEnvelope<"sealed_auction.bid_submitted", BidSubmittedData>;
export type AuctionResolvedEvent = EventEnvelope<"sealed_auction.resolved", SealedAuctionResolution>;

export type CommitmentEventType =
  | "commitment.provisional"
  | "commitment.awaiting_confirmations"
  | "commitment.committed"
  | "commitment.confirmation_recorded"
  | "commitment.declined"
  | "commitment.expired";
export type CommitmentEvent = EventEnvelope<CommitmentEventType, CommitmentStateChangedEventData>;

/** Every public event. */
export type Event =
  | DraftCreatedEvent
  | PublishedEvent
  | DirectClaimAcceptedEvent
  | BidSubmittedEvent
  | AuctionResolvedEvent
  | CommitmentEvent;

export type EventType = Event["type"];

export const EVENT_TYPES: readonly EventType[] = [
  "market.draft_created",
  "market.published",
  "direct_claim.accepted",
  "sealed_auction.bid_submitted",
  "sealed_auction.resolved",
  "commitment.provisional",
  "commitment.awaiting_confirmations",
  "commitment.committed",
  "commitment.confirmation_recorded",
  "commitment.declined",
  "commitment.expired",
];

/**
 * What an actor who is not the market's creator receives of an event on a live stream (docs/events.md,
 * decision I38): the event's public view, no more than `GET /v1/markets/{id}` shows.
 */
export interface PublicMarketEvent {
  sequence: number;
  id: string;
  type: Event["type"];
  marketId: string;
  marketVersion: number;
  occurredAt: string;
  data: Record<string, unknown>;
}
