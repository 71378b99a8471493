/** Spec §6: the event envelope and every payload of §6.2. */
import type { NoTradeResolution, SealedAuctionResolution, WinnerSelectedResolution } from "./auction.js";
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
 * What the market's creator receives of an event, on a live stream as in `GET …/record`: the event as
 * the record holds it (the creator principal, or the actor that created the market; docs/events.md).
 * Narrow it on `type` for its `data`.
 */
export type CreatorMarketEvent = Event;

/**
 * The `data` of each event's public view (docs/events.md, "Visibility"; decision I38): no more than
 * `GET /v1/markets/{id}` shows, as of the event. The service builds each from the event's own data
 * (engine/events/public-event.ts, typed against this map). Types absent here
 * (`commitment.provisional`, `commitment.awaiting_confirmations`, `commitment.committed`,
 * `commitment.confirmation_recorded`) have no public view and are never sent to such a subscriber.
 */
export interface PublicEventData {
  "market.draft_created": DraftCreatedData;
  "market.published": PublishedData;
  /** No commitment id. */
  "direct_claim.accepted": Pick<DirectClaimAcceptedData, "allocated" | "capacity">;
  /** No bid id (and no bid event carries an amount, in any view). */
  "sealed_auction.bid_submitted": Pick<BidSubmittedData, "bidCount">;
  /** No winner principal, no clearing price. */
  "sealed_auction.resolved": NoTradeResolution | Pick<WinnerSelectedResolution, "outcome" | "winningBidId">;
  /** A released hold, which the snapshot shows too. */
  "commitment.declined": Pick<CommitmentStateChangedEventData, "state">;
  "commitment.expired": Pick<CommitmentStateChangedEventData, "state">;
}

/** The event types a subscriber who is not the creator can receive. */
export type PublicEventType = keyof PublicEventData;

/**
 * One event type's public view: the envelope's public members (no `commandId`, `principalId`,
 * `actorId` or `authorityRef`: the submitter's) with its sequence, and the public `data`.
 */
export type PublicEventView<Type extends PublicEventType> = Pick<EventEnvelope<Type, PublicEventData[Type]>, "id" | "type" | "marketId" | "marketVersion" | "occurredAt" | "data"> & {
  sequence: PositiveSafeUint64;
};

/**
 * What an actor who is not the market's creator receives of an event on a live stream (docs/events.md,
 * decision I38): the event's public view, discriminated by `type`.
 */
export type PublicMarketEvent = { [Type in PublicEventType]: PublicEventView<Type> }[PublicEventType];

/**
 * True for the creator's view of an event as a live stream sends it (the record's own event), false
 * for the public view. Which one a subscriber gets is up to its credentials, not to it; the creator's
 * view names the command that emitted the event (`commandId`, `principalId`, `actorId`), the public
 * view never does.
 */
export function isCreatorEvent(event: CreatorMarketEvent | PublicMarketEvent): event is CreatorMarketEvent {
  return "commandId" in event;
}
