/**
 * Spec §5.5: may this authenticated actor act for this principal with this scope, now?
 *
 * - Self-action: actor id = principal id. No delegation is involved, and `authorityRef` must be
 *   omitted (spec §2.1: "omitted for self-action"); one sent anyway is refused with
 *   `invalid_command` rather than silently ignored, so a client never believes a delegation was
 *   checked when it was not.
 * - Otherwise, in this order: `authorityRef` missing → authority_reference_required; no such
 *   delegation → delegation_not_found; it names another delegate actor → actor_not_authorized; it
 *   was granted by another principal → principal_not_authorized; it lacks the scope →
 *   actor_not_authorized (the actor is not authorized for this operation); before validFrom, at or
 *   after validUntil, or revoked → delegation_inactive.
 * - In both cases a principal the store knows as disabled → principal_not_authorized. A principal
 *   the store does not know is allowed for self-action: HMAC and static-token actors are trusted
 *   configuration and act as themselves without being provisioned.
 *
 * Scopes per operation (spec: "not shown"): see SCOPE_FOR_OPERATION. `credential:issue` may be put
 * in a delegation but no v1 operation requires it, so it grants nothing.
 */
import { AUTHORITY_SCOPES, type AuthorityScope, type CommandType, type Rejection } from "@market-service/client/wire";
import type { IdentityState } from "../../engine/rules/identity/state.js";
import type { DelegationRecord } from "../../engine/rules/identity/types.js";

/** Market commands a client submits (the service's own resolve/expire commands need no authority). */
export type DelegableOperation = Exclude<CommandType, "sealed_auction.resolve" | "commitment.expire">;

export const SCOPE_FOR_OPERATION: Readonly<Record<DelegableOperation, AuthorityScope>> = Object.freeze({
  "market.create_draft": "market:create",
  "market.publish": "market:publish",
  "direct_claim.submit": "market:claim",
  "sealed_auction.submit_bid": "market:bid",
  "commitment.confirm": "commitment:confirm",
  "commitment.decline": "commitment:decline",
});

/** Every scope that some operation requires (all but `credential:issue`). */
export const MARKET_SCOPES: readonly AuthorityScope[] = Object.freeze(
  AUTHORITY_SCOPES.filter((scope) => scope !== "credential:issue"),
);

export interface ActingIdentity {
  readonly actorId: string;
  readonly principalId: string;
  readonly authorityRef?: string | undefined;
}

export interface AuthorityRequest extends ActingIdentity {
  readonly scope: AuthorityScope;
}

/** Authority for one operation: undefined when allowed, else the rejection to reply and record. */
export function checkAuthority(state: IdentityState, request: AuthorityRequest, nowMs: number): Rejection | undefined {
  const scope = request.scope;
  return check(state, request, nowMs, (scopes) => scopes.includes(scope), `scope "${scope}"`);
}

/**
 * Authority through any market scope: for reads where a delegate looks at what its principal did
 * (e.g. a market record). Any delegation of the principal to this actor that carries at least one
 * operation scope will do; `credential:issue` alone does not.
 */
export function checkAnyMarketAuthority(state: IdentityState, request: ActingIdentity, nowMs: number): Rejection | undefined {
  return check(state, request, nowMs, (scopes) => scopes.some((scope) => scope !== "credential:issue"), "a market scope");
}

function check(
  state: IdentityState,
  request: ActingIdentity,
  nowMs: number,
  includesScope: (scopes: readonly AuthorityScope[]) => boolean,
  scopeText: string,
): Rejection | undefined {
  const { actorId, principalId, authorityRef } = request;
  const principal = state.principals.get(principalId);
  if (actorId === principalId) {
    if (authorityRef !== undefined) {
      return { code: "invalid_command", message: "authorityRef must be omitted when the actor acts for itself" };
    }
    if (principal?.disabledAtMs !== undefined) {
      return { code: "principal_not_authorized", message: `principal "${principalId}" is disabled` };
    }
    return undefined;
  }
  if (authorityRef === undefined) {
    return {
      code: "authority_reference_required",
      message: "authorityRef is required when the actor acts for another principal",
    };
  }
  const delegation = state.delegations.get(authorityRef);
  if (delegation === undefined) {
    return { code: "delegation_not_found", message: `delegation "${authorityRef}" does not exist` };
  }
  if (delegation.actorId !== actorId) {
    return { code: "actor_not_authorized", message: `delegation "${authorityRef}" does not name this actor` };
  }
  if (delegation.principalId !== principalId) {
    return { code: "principal_not_authorized", message: `delegation "${authorityRef}" is not granted by principal "${principalId}"` };
  }
  if (!includesScope(delegation.scopes)) {
    return { code: "actor_not_authorized", message: `delegation "${authorityRef}" does not include ${scopeText}` };
  }
  const inactive = inactiveReason(delegation, nowMs);
  if (inactive !== undefined) {
    return { code: "delegation_inactive", message: `delegation "${authorityRef}" ${inactive}` };
  }
  if (principal?.disabledAtMs !== undefined) {
    return { code: "principal_not_authorized", message: `principal "${principalId}" is disabled` };
  }
  return undefined;
}

/** Spec §3.3: active from validFrom, until validUntil if set (exclusive), unless revoked. */
export function inactiveReason(delegation: DelegationRecord, nowMs: number): string | undefined {
  if (delegation.revokedAtMs !== undefined) return "is revoked";
  if (nowMs < delegation.validFromMs) return "is not valid yet";
  if (delegation.validUntilMs !== undefined && nowMs >= delegation.validUntilMs) return "has expired";
  return undefined;
}
