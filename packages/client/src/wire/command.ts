/**
 * The HTTP request bodies of the market and commitment commands (spec §4.2) and the command types
 * a market record names (spec §2.10 `type`). The gateway validates a body against one of the
 * `*Body` types (validators generated from these declarations by typia), authenticates the actor,
 * checks delegated authority, and hands the engine the command made from it
 * (engine/rules/types/command.ts).
 */
import type { MechanismSelectionInput, UncheckedMechanismSelection } from "./market.js";
import type {
  AuthorityRef,
  CommandId,
  Currency,
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

interface CreateMarketFields<Mechanism> extends ActingBody {
  marketId: MarketId;
  subject: Subject;
  mechanism: Mechanism;
}

/** POST /v1/markets */
// As a client writes it: the mechanism is one preset with that preset's config (a union on presetId).
export interface CreateMarketBody extends CreateMarketFields<MechanismSelectionInput> {}

/**
 * POST /v1/markets as the service validates it: the same body with the mechanism left open
 * (UncheckedMechanismSelection says why), so that the engine answers an unknown preset or a config
 * that does not fit it with the spec's 422 codes.
 */
export interface UncheckedCreateMarketBody extends CreateMarketFields<UncheckedMechanismSelection> {}

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
// Command types (spec §2.10), as a market record names them.
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
