/** Spec §2.3–§2.5: markets, mechanism selection (normalized configuration) and public mechanism state. */
import type { tags } from "typia";
import type {
  CommandIdentity,
  Currency,
  DateTime,
  GeneratedId,
  MarketId,
  PositiveAmountMinor,
  PositiveSafeUint64,
  PositiveUint32,
  Subject,
  Uint32,
} from "./shared.js";

export type MarketState = "draft" | "open" | "closed";

export const DIRECT_CLAIM_PRESET = "direct-claim.v1";
export const SEALED_AUCTION_PRESET = "sealed-forward-auction.v1";
export type PresetId = typeof DIRECT_CLAIM_PRESET | typeof SEALED_AUCTION_PRESET;

/** DirectClaimPricing, discriminated by `mode`. */
export type DirectClaimPricing = FreePricing | PostedPricing;
export interface FreePricing {
  mode: "free";
}
export interface PostedPricing {
  mode: "posted";
  amountMinor: PositiveAmountMinor;
  currency: Currency;
}

export type ConfirmationMode = "none" | "creator" | "participant" | "both";

/**
 * direct-claim.v1 configuration as a client sends it, discriminated by `confirmation` (§2.4).
 * With `none` an explicit `holdDurationSeconds` must be 0 and is removed by normalization.
 */
export type DirectClaimConfigInput = DirectClaimConfigInputWithoutHold | DirectClaimConfigWithHold;
export interface DirectClaimConfigInputWithoutHold {
  /** Number of successful commitments the market can allocate. */
  capacity: PositiveUint32;
  pricing: DirectClaimPricing;
  confirmation: "none";
  holdDurationSeconds?: 0;
}
export interface DirectClaimConfigWithHold {
  capacity: PositiveUint32;
  pricing: DirectClaimPricing;
  /** Principals that must confirm before the commitment is final. */
  confirmation: "creator" | "participant" | "both";
  /** Confirmation period before expiry. */
  holdDurationSeconds: PositiveUint32;
}

/** Normalized direct-claim.v1 configuration, as stored and returned. */
export type DirectClaimConfig = DirectClaimConfigWithoutHold | DirectClaimConfigWithHold;
export interface DirectClaimConfigWithoutHold {
  capacity: PositiveUint32;
  pricing: DirectClaimPricing;
  confirmation: "none";
}

/** sealed-forward-auction.v1 configuration (§2.4); normalization rewrites `closesAt` to UTC milliseconds. */
export interface SealedAuctionConfig {
  currency: Currency;
  reserveAmountMinor?: PositiveAmountMinor;
  /** Fixed close; must still be in the future when the draft is published. */
  closesAt: DateTime;
  /** Winner confirmation period after resolution. */
  holdDurationSeconds: PositiveUint32;
}

export interface DirectClaimSelection {
  presetId: typeof DIRECT_CLAIM_PRESET;
  config: DirectClaimConfig;
}
export interface SealedAuctionSelection {
  presetId: typeof SEALED_AUCTION_PRESET;
  config: SealedAuctionConfig;
}
/** Normalized, immutable mechanism configuration of a market. */
export type MechanismSelection = DirectClaimSelection | SealedAuctionSelection;

/** direct-claim.v1 as a client selects it: first-come claims. */
export interface DirectClaimSelectionInput {
  /** `direct-claim.v1`: first-come claims. */
  presetId: typeof DIRECT_CLAIM_PRESET;
  config: DirectClaimConfigInput;
}
/** sealed-forward-auction.v1 as a client selects it: a sealed second-price auction. */
export interface SealedAuctionSelectionInput {
  /** `sealed-forward-auction.v1`: a sealed second-price auction. */
  presetId: typeof SEALED_AUCTION_PRESET;
  config: SealedAuctionConfig;
}
/**
 * The allocation mechanism and its configuration (§2.4), discriminated by `presetId`: each preset
 * with its own config type. The service answers another preset id with 422 `unknown_mechanism` and a
 * config that does not fit its preset with 422 `invalid_mechanism_config`.
 */
export type MechanismSelectionInput = DirectClaimSelectionInput | SealedAuctionSelectionInput;

/**
 * A mechanism selection as the service receives it, before the engine checks it: any preset id and
 * any object as config. It is wider than MechanismSelectionInput on purpose, and only the service
 * uses it: the spec answers an unknown preset with 422 `unknown_mechanism` and a config that does
 * not fit its preset with 422 `invalid_mechanism_config`, rejections recorded in the market's log,
 * where a body validator of the union would refuse both with 400 `invalid_request` before the engine
 * saw them. The engine narrows it to MechanismSelectionInput (engine/rules/market/mechanism-config.ts:
 * the preset id against the presets, then the config against that preset's declared input type).
 */
export interface UncheckedMechanismSelection {
  presetId: string & tags.MinLength<1> & tags.MaxLength<128>;
  config: Record<string, unknown>;
}
/** Public state of a direct-claim.v1 market. */
export interface DirectClaimState {
  /** Capacity currently held or committed. */
  allocated: Uint32;
}

export type AuctionResolutionOutcome = "winner_selected" | "no_trade";

/** Public state of a sealed-forward-auction.v1 market: bid contents are private. */
export interface SealedAuctionState {
  /** Accepted bids. */
  bidCount: Uint32;
  resolution?: AuctionResolutionOutcome;
  winningBidId?: GeneratedId;
  /** Bids excluded after a winner declined or expired, in exclusion order. */
  excludedBidIds?: GeneratedId[];
}

export type MechanismState = DirectClaimState | SealedAuctionState;

/** Spec §2.3. */
export interface Market {
  id: MarketId;
  version: PositiveSafeUint64;
  state: MarketState;
  creator: CommandIdentity;
  subject: Subject;
  mechanism: MechanismSelection;
  mechanismState: MechanismState;
  createdAt: DateTime;
  updatedAt: DateTime;
}
