/**
 * Commands (spec §2.10 `type`) as the engine receives them, and the HTTP bodies they are made from.
 *
 * The gateway validates a body against one of the `*Body` types, authenticates the actor, checks
 * delegated authority, and the shard stamps the server time; the engine then decides. The engine never
 * reads a clock: `occurredAtMs` is the only time it knows.
 */
import type { MechanismSelectionInput } from "./market.js";
import type { Rejection } from "./errors.js";
import type {
  AuthorityRef,
  CommandId,
  CommandIdentity,
  Currency,
  GeneratedId,
  MarketId,
  PositiveAmountMinor,
  PositiveSafeUint64,
  PrincipalId,
  SafeUint64,
  Subject,
} from "./shared.js";

// ---------------------------------------------------------------------------------------------
// HTTP bodies (spec §4.2). Strict: unknown members are rejected by the gateway.
// ---------------------------------------------------------------------------------------------

interface ActingBody {
  /** Actor-scoped idempotency key. */
  commandId: CommandId;
  /** Principal the authenticated actor represents. */
  principalId: PrincipalId;
  /** Delegation id; required when the actor acts for another principal. */
  authorityRef?: AuthorityRef;
}

/** POST /v1/markets */
export interface CreateMarketBody extends ActingBody {
  marketId: MarketId;
  subject: Subject;
  mechanism: MechanismSelectionInput;
}

/** POST /v1/markets/{marketId}/publish */
export interface PublishMarketBody extends ActingBody {
  /** The current draft version. */
  expectedVersion: PositiveSafeUint64;
}

/** POST /v1/markets/{marketId}/direct-claims */
export interface DirectClaimBody extends ActingBody {
  /** Omit or 0 for server arrival order; otherwise must equal the current market version. */
  expectedVersion?: SafeUint64;
}

/** POST /v1/markets/{marketId}/sealed-bids */
export interface SealedBidBody extends ActingBody {
  amountMinor: PositiveAmountMinor;
  currency: Currency;
}

/** POST /v1/commitments/{commitmentId}/confirm and /decline */
export interface CommitmentActionBody extends ActingBody {}

// ---------------------------------------------------------------------------------------------
// Engine commands.
// ---------------------------------------------------------------------------------------------

export type CommandType =
  | "market.create_draft"
  | "market.publish"
  | "direct_claim.submit"
  | "sealed_auction.submit_bid"
  | "sealed_auction.resolve"
  | "commitment.confirm"
  | "commitment.decline"
  | "commitment.expire";

export const COMMAND_TYPES: readonly CommandType[] = [
  "market.create_draft",
  "market.publish",
  "direct_claim.submit",
  "sealed_auction.submit_bid",
  "sealed_auction.resolve",
  "commitment.confirm",
  "commitment.decline",
  "commitment.expire",
];

interface CommandHeader<Type extends CommandType> {
  type: Type;
  commandId: CommandId;
  identity: CommandIdentity;
  /** Server command time in Unix epoch milliseconds, stamped by the shard. */
  occurredAtMs: number;
  /**
   * Set when the gateway's authority checks (spec §5.5) refused the command. The engine records
   * the refusal in the market's record instead of deciding.
   */
  authorityRejection?: Rejection;
}

export interface CreateDraftCommand extends CommandHeader<"market.create_draft"> {
  marketId: MarketId;
  subject: Subject;
  mechanism: MechanismSelectionInput;
}
export interface PublishCommand extends CommandHeader<"market.publish"> {
  marketId: MarketId;
  expectedVersion: number;
}
export interface DirectClaimCommand extends CommandHeader<"direct_claim.submit"> {
  marketId: MarketId;
  expectedVersion?: number;
}
export interface SubmitBidCommand extends CommandHeader<"sealed_auction.submit_bid"> {
  marketId: MarketId;
  amountMinor: number;
  currency: Currency;
}
/** System command: the timer wheel resolves an auction at `closesAt`. */
export interface ResolveAuctionCommand extends CommandHeader<"sealed_auction.resolve"> {
  marketId: MarketId;
}
export interface ConfirmCommitmentCommand extends CommandHeader<"commitment.confirm"> {
  commitmentId: GeneratedId;
}
export interface DeclineCommitmentCommand extends CommandHeader<"commitment.decline"> {
  commitmentId: GeneratedId;
}
/** System command: the timer wheel expires a commitment at `expiresAt`. */
export interface ExpireCommitmentCommand extends CommandHeader<"commitment.expire"> {
  commitmentId: GeneratedId;
}

export type MarketCommand =
  | CreateDraftCommand
  | PublishCommand
  | DirectClaimCommand
  | SubmitBidCommand
  | ResolveAuctionCommand;
export type CommitmentCommand = ConfirmCommitmentCommand | DeclineCommitmentCommand | ExpireCommitmentCommand;
export type Command = MarketCommand | CommitmentCommand;

/** The identity of commands the service issues itself (auction close, hold expiry). */
export const SYSTEM_IDENTITY: Readonly<CommandIdentity> = Object.freeze({
  principalId: "@system",
  actorId: "@system",
});
