/**
 * The result of authenticating a request. (The authentication resources, challenge and token grant,
 * are @market-service/client's wire declarations.)
 */
import type { ErrorReply } from "../../engine/rules/identity/types.js";

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
