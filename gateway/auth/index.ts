/** Public API of authentication (spec §5.1–5.4) and delegated authority (spec §5.5). */
export { AuthService, operatorCheck, type AuthenticationRequest } from "./service.js";
export {
  loadAuthConfig,
  ConfigError,
  DEFAULT_AUDIENCE,
  DEFAULT_CHALLENGE_TTL_SECONDS,
  DEFAULT_TOKEN_TTL_SECONDS,
  DEFAULT_HMAC_CLOCK_SKEW_SECONDS,
  DEFAULT_MAX_CHALLENGES,
  type AuthConfig,
  type Env,
} from "./config.js";
export { OPERATOR_SECRET_FILE_NAME, BOOTSTRAP_OPERATOR_ACTOR_ID } from "./operator-bootstrap.js";
export {
  checkAuthority,
  checkAnyMarketAuthority,
  SCOPE_FOR_OPERATION,
  MARKET_SCOPES,
  type DelegableOperation,
  type AuthorityRequest,
  type ActingIdentity,
} from "./authority.js";
export { verifyHmacRequest, hmacCanonicalString, HMAC_SCHEME, type HmacRequest } from "./hmac.js";
export { SIGNING_PAYLOAD_PREFIX, signingPayloadBytes, signingPayloadText } from "./signing-payload.js";
export type { IdentitySource } from "./identity-source.js";
export type { ChallengeStore, FoundChallenge, PendingChallenge } from "./challenge-store.js";
export { MemoryChallengeStore } from "./memory-challenge-store.js";
export type { Ed25519ProofOptions } from "./ed25519-proof.js";
export { AUTHENTICATION_FAILED, AUTHENTICATION_FAILED_MESSAGE, type AuthenticatedActor, type CredentialKind } from "./types.js";
export { type AuthenticationChallenge, type AuthenticationTokenGrant } from "@market-service/client/wire";
