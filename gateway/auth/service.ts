/**
 * The one object the HTTP and MCP layers call for authentication and authority. It binds the
 * validated configuration, the identity store and the challenge store (in memory on one node, the
 * cluster's KV bucket in cluster mode); every method is a thin wrapper over a function in this
 * directory.
 */
import type { AuthenticationChallenge, AuthenticationTokenGrant, CreateChallengeBody, IssueTokenBody, Rejection } from "@market-service/client/wire";
import type { Reply } from "../../engine/rules/identity/types.js";
import type { TemporarilyUnavailable } from "../../engine/identity/unavailable.js";
import {
  checkAnyMarketAuthority,
  checkAuthority,
  type ActingIdentity,
  type AuthorityRequest,
} from "./authority.js";
import { authenticateBearerToken } from "./bearer.js";
import type { AuthConfig } from "./config.js";
import { Ed25519ProofAuthenticator, type Ed25519ProofOptions } from "./ed25519-proof.js";
import { verifyHmacRequest, type HmacRequest } from "./hmac.js";
import type { IdentitySource } from "./identity-source.js";
import { isMetricsToken } from "./metrics-token.js";
import { authenticateStaticToken } from "./static-tokens.js";
import type { AuthenticatedActor } from "./types.js";

export interface AuthenticationRequest {
  /** Header lookup by lower-case name. */
  readonly headers: (lowerCaseName: string) => string | undefined;
  readonly method: string;
  /** Raw request target: path plus `?query`, as received. */
  readonly uri: string;
  readonly bodyBytes: Uint8Array;
  /** `mcp` for requests to `/mcp`: only there are static tokens accepted. */
  readonly transport: "http" | "mcp";
}

const STORE_UNAVAILABLE: Rejection = { code: "internal_error", message: "identity store is unavailable" };

/** The operator check the identity store needs at open (before an AuthService exists). */
export function operatorCheck(config: AuthConfig): (actorId: string) => boolean {
  return (actorId) => config.operatorActors.has(actorId);
}

export class AuthService {
  private readonly proof: Ed25519ProofAuthenticator;

  /** `proof`: where challenges are kept and, in cluster mode, how to catch up with the identity log. */
  constructor(
    readonly config: AuthConfig,
    private readonly identity: IdentitySource,
    proof: Ed25519ProofOptions = {},
  ) {
    this.proof = new Ed25519ProofAuthenticator(config, identity, proof);
  }

  /** POST /v1/auth/challenges. */
  createChallenge(body: CreateChallengeBody, nowMs: number): Promise<Reply<AuthenticationChallenge> | TemporarilyUnavailable> {
    return this.proof.createChallenge(body, nowMs);
  }

  /** POST /v1/auth/tokens. */
  issueToken(body: IssueTokenBody, nowMs: number): Promise<Reply<AuthenticationTokenGrant> | TemporarilyUnavailable> {
    return this.proof.issueToken(body, nowMs);
  }

  /** Undefined where the challenge store cannot count them (the cluster's KV bucket). */
  get outstandingChallenges(): number | undefined {
    return this.proof.outstandingChallenges;
  }

  authenticateBearer(token: string, nowMs: number): string | undefined {
    return authenticateBearerToken(this.identity, this.config.audience, token, nowMs);
  }

  authenticateHmac(request: HmacRequest, nowMs: number): string | undefined {
    return verifyHmacRequest(this.config, request, nowMs);
  }

  authenticateStaticMcpToken(token: string): string | undefined {
    return authenticateStaticToken(this.config.staticMcpTokenHashes, token);
  }

  /**
   * The acting actor of a request, or undefined (→ 401 `unauthenticated`, "request authentication
   * failed"). `Authorization: Bearer <t>`: an issued token on both transports, else a static token
   * on `/mcp` only. `Authorization: Service-HMAC <sig>` with X-Service-Actor and X-Service-Timestamp:
   * on both transports. Scheme names are case-insensitive (RFC 9110 §11.1).
   */
  authenticateRequest(request: AuthenticationRequest, nowMs: number): AuthenticatedActor | undefined {
    const authorization = request.headers("authorization");
    if (authorization === undefined) return undefined;
    const space = authorization.indexOf(" ");
    if (space <= 0) return undefined;
    const scheme = authorization.slice(0, space).toLowerCase();
    if (scheme === "bearer") {
      const token = authorization.slice(space + 1).trim();
      const actorId = this.authenticateBearer(token, nowMs);
      if (actorId !== undefined) return { actorId, credential: "bearer" };
      if (request.transport !== "mcp") return undefined;
      const staticActorId = this.authenticateStaticMcpToken(token);
      return staticActorId === undefined ? undefined : { actorId: staticActorId, credential: "static" };
    }
    if (scheme === "service-hmac") {
      const actorId = this.authenticateHmac(
        {
          actorHeader: request.headers("x-service-actor"),
          timestampHeader: request.headers("x-service-timestamp"),
          authorizationHeader: authorization,
          method: request.method,
          uri: request.uri,
          bodyBytes: request.bodyBytes,
        },
        nowMs,
      );
      return actorId === undefined ? undefined : { actorId, credential: "hmac" };
    }
    return undefined;
  }

  /** Whether `token` is the configured metrics token (a credential for GET /metrics only). */
  isMetricsToken(token: string): boolean {
    return isMetricsToken(this.config.metricsTokenHash, token);
  }

  /** Spec §5.4. */
  isOperator(actorId: string): boolean {
    return this.config.operatorActors.has(actorId);
  }

  /** Mount `POST /v1/admin/identities` only when this is true (spec §4.2). */
  operatorsConfigured(): boolean {
    return this.config.operatorActors.size > 0;
  }

  /** Spec §5.5 for one operation's scope (SCOPE_FOR_OPERATION). Fails closed if the store failed. */
  checkAuthority(request: AuthorityRequest, nowMs: number): Rejection | undefined {
    if (this.identity.unavailable) return STORE_UNAVAILABLE;
    return checkAuthority(this.identity.state, request, nowMs);
  }

  /** Spec §5.5 with any market scope (reads on behalf of a principal). */
  checkAnyMarketAuthority(request: ActingIdentity, nowMs: number): Rejection | undefined {
    if (this.identity.unavailable) return STORE_UNAVAILABLE;
    return checkAnyMarketAuthority(this.identity.state, request, nowMs);
  }
}
