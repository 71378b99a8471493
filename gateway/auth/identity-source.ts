/**
 * What authentication and authority need from the identity store (IdentityStore implements it):
 * the live state to read, whether it can be trusted, and a way to persist an issued token.
 */
import type { IdentityState } from "../../engine/rules/identity/state.js";
import type { TokenRecord } from "../../engine/rules/identity/types.js";

export interface IdentitySource {
  /** Read-only by contract. */
  readonly state: IdentityState;
  /** True when the store failed or closed: every check must then fail closed. */
  readonly unavailable: boolean;
  /** Resolves true once the token's hash record is durable. */
  recordToken(token: TokenRecord): Promise<boolean>;
}
