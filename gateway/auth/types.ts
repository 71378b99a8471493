/** Authentication resources (spec §2.2) and the result of authenticating a request. */
import type { ErrorReply } from "../../engine/rules/identity/types.js";

export interface AuthenticationChallenge {
  id: string;
  actorId: string;
  keyId: string;
  audience: string;
  /** Unpadded base64url of 32 random bytes. */
  nonce: string;
  expiresAt: string;
  /** Unpadded base64url of the exact bytes to sign (layout: signing-payload.ts, docs/auth.md). */
  signingPayload: string;
}

export interface AuthenticationTokenGrant {
  accessToken: string;
  tokenType: "Bearer";
  actorId: string;
  expiresAt: string;
}

export type CredentialKind = "hmac" | "bearer" | "static";

export interface AuthenticatedActor {
  readonly actorId: string;
  readonly credential: CredentialKind;
}

/** The one failure every authentication path reports (spec §5.1, §7). */
export const AUTHENTICATION_FAILED_MESSAGE = "request authentication failed";

export const AUTHENTICATION_FAILED: ErrorReply = Object.freeze({
  ok: false,
  code: "unauthenticated",
  message: AUTHENTICATION_FAILED_MESSAGE,
}) as ErrorReply;
