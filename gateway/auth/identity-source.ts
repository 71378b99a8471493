/**
 * What authentication and authority need from the identity store (IdentityStore implements it):
 * the live state to read, whether it can be trusted, and a way to persist an issued token.
 */
import type { IdentityState } from "../../engine/rules/identity/state.js";
import type { TokenRecord } from "../../engine/rules/identity/types.js";
import type { TokenRecording } from "../../engine/identity/unavailable.js";

export interface IdentitySource {
  /** Read-only by contract. */
  readonly state: IdentityState;
  /**
   * True when the store failed or closed: every check must then fail closed. (In the cluster mode,
   * losing the shared identity log is not this: checks go on reading the last state applied, and
   * only what must be logged, such as a token, is refused for now.)
   */
  readonly unavailable: boolean;
  /** Resolves "recorded" once the token's hash record is durable; the token is handed out only then. */
  recordToken(token: TokenRecord): Promise<TokenRecording>;
}
