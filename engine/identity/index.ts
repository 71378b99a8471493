/** Public API of the identity store (principals, actors, keys, delegations, token records). */
export {
  IdentityStore,
  DEFAULT_SNAPSHOT_EVERY_COMMANDS,
  type IdentityStoreOptions,
  type IdentityRecoveryReport,
  type IdentityStoreStats,
  type IdentityRequest,
  type IdentityCommandReply,
} from "./store.js";
export { temporarilyUnavailable, type TemporarilyUnavailable, type TokenRecording } from "./unavailable.js";
export type {
  ProvisionIdentityBody,
  IssueDelegationBody,
  RevokeDelegationBody,
  DisableActorBody,
  DisablePrincipalBody,
  RevokeKeyBody,
  CreateChallengeBody,
  IssueTokenBody,
  PublicKeyText,
} from "@market-service/client/wire";
export type { Principal, Actor, ActorKey, Delegation, ProvisionedIdentity } from "@market-service/client/wire";
export type { Reply, OkReply, ErrorReply, IdentityReply, TokenRecord } from "../rules/identity/types.js";
export { decide } from "../rules/identity/decide.js";
export { evolve } from "../rules/identity/evolve.js";
export { emptyIdentityState, MAX_LIVE_TOKENS_PER_KEY, type IdentityState } from "../rules/identity/state.js";
export { SYSTEM_ID, isIdentifier, decodePublicKey, decodeBase64UrlStrict } from "./validate.js";
