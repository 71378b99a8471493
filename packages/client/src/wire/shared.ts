/**
 * Shared types of spec §2.1, with every rule as a typia tag so that the gateway validators, the MCP
 * input schemas and the OpenAPI document are all generated from this one place.
 *
 * Bounds the spec leaves open ("Maximum lengths of identifiers and strings: not shown") are decided
 * here and documented in docs/decisions.md.
 */
import type { tags } from "typia";

/** Largest integer a JSON number can carry without rounding (2^53 − 1). */
export const MAX_SAFE_INTEGER = 9_007_199_254_740_991;
/** Decision: identifiers are at most 128 UTF-16 code units. */
export const MAX_IDENTIFIER_LENGTH = 128;
/** Decision: free-text strings we own (subject schema, messages) are at most 256 code units. */
export const MAX_SHORT_STRING_LENGTH = 256;

/**
 * A client- or operator-chosen identifier: 1..128 characters, no C0 control characters or DEL
 * (they would corrupt logs and terminals), no leading/trailing constraints beyond that.
 */
export type Identifier = string &
  tags.MinLength<1> &
  tags.MaxLength<128> &
  tags.Pattern<"^[^\\u0000-\\u001F\\u007F]+$">;

/**
 * An identifier that is also a URL path segment (`/v1/markets/{marketId}`,
 * `/v1/delegations/{delegationId}/revoke`): an Identifier that is not `.` or `..`, which URL parsers
 * remove from a path as dot segments (`%2e` too), so a resource with such an id could never be named.
 */
export type PathIdentifier = string &
  tags.MinLength<1> &
  tags.MaxLength<128> &
  tags.Pattern<"^(?!\\.\\.?$)[^\\u0000-\\u001F\\u007F]+$">;

/** `.` or `..`: what a PathIdentifier may not be. */
export function isDotSegment(value: string): boolean {
  return value === "." || value === "..";
}

export type CommandId = Identifier;
export type PrincipalId = Identifier;
export type ActorId = Identifier;
export type AuthorityRef = Identifier;
export type MarketId = PathIdentifier;
export type DelegationId = PathIdentifier;
export type KeyId = Identifier;

/** An id the service generated (commitment, bid, event). Longer, because it embeds a market id. */
export type GeneratedId = string & tags.MinLength<1> & tags.MaxLength<1024>;

/** RFC 3339 timestamp. Values the service emits are always `Date.prototype.toISOString()` form. */
export type DateTime = string & tags.Format<"date-time">;

export type Currency = string & tags.Pattern<"^[A-Z]{3}$">;

export type Uint32 = number & tags.Type<"uint32">;
export type PositiveUint32 = number & tags.Type<"uint32"> & tags.Minimum<1>;
/** uint64 restricted to safe integers: larger values are rejected, never rounded. */
export type SafeUint64 = number & tags.Type<"uint64"> & tags.Maximum<9007199254740991>;
export type PositiveSafeUint64 = SafeUint64 & tags.Minimum<1>;
/** int64 restricted to safe integers. */
export type SafeInt64 = number &
  tags.Type<"int64"> &
  tags.Minimum<-9007199254740991> &
  tags.Maximum<9007199254740991>;
/** Amounts in minor currency units that must be at least 1 (bids, posted prices, reserves). */
export type PositiveAmountMinor = number & tags.Type<"int64"> & tags.Minimum<1> & tags.Maximum<9007199254740991>;
/** Clearing price: zero is possible (no reserve, one bidder). */
export type NonNegativeAmountMinor = number & tags.Type<"int64"> & tags.Minimum<0> & tags.Maximum<9007199254740991>;

export type AuthorityScope =
  | "market:create"
  | "market:publish"
  | "market:claim"
  | "market:bid"
  | "commitment:confirm"
  | "commitment:decline"
  | "credential:issue";

export const AUTHORITY_SCOPES: readonly AuthorityScope[] = [
  "market:create",
  "market:publish",
  "market:claim",
  "market:bid",
  "commitment:confirm",
  "commitment:decline",
  "credential:issue",
];

/** Spec §2.1 Subject: `data` is any JSON object; the gateway bounds its size and nesting depth. */
export interface Subject {
  /** Client-chosen versioned identifier of the data shape, e.g. `table-booking.v2`. */
  schema: string & tags.MinLength<1> & tags.MaxLength<256>;
  /** Any JSON object; additional members allowed. */
  data: Record<string, unknown>;
}

/** Spec §2.1 CommandIdentity. */
export interface CommandIdentity {
  /** Principal whose rights or obligations are affected. */
  principalId: PrincipalId;
  /** Authenticated submitter. */
  actorId: ActorId;
  /** Delegation used when actor and principal differ. */
  authorityRef?: AuthorityRef;
}
