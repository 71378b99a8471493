/**
 * Commands (spec §2.10 `type`) as the engine receives them, made from the HTTP bodies of
 * @market-service/client's wire declarations (packages/client/src/wire/command.ts).
 *
 * The gateway validates a body against one of the `*Body` types, authenticates the actor, checks
 * delegated authority, and the shard stamps the server time; the engine then decides. The engine never
 * reads a clock: `occurredAtMs` is the only time it knows.
 */
import type { CommandId, CommandIdentity, CommandType, Currency, GeneratedId, MarketId, Rejection, Subject, UncheckedMechanismSelection } from "@market-service/client/wire";

// ---------------------------------------------------------------------------------------------
// Engine commands.
// ---------------------------------------------------------------------------------------------

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
  /** As received: the engine checks the preset and its config when it decides (unknown_mechanism, invalid_mechanism_config). */
  mechanism: UncheckedMechanismSelection;
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
