/**
 * The identity decider: pure. `decide(state, command)` returns the events to apply and the reply,
 * or a rejection; it reads no clock (the command carries its server time) and mutates nothing.
 * Every decision it makes about an admin or delegation command is logged with the command, so a
 * replay after a restart reproduces the exact reply without deciding again.
 *
 * Rejection order (docs/auth.md): who may act when it depends only on the request (403), then
 * existence (404), then state-dependent permission (403), then state conflicts (409), then
 * time-dependent validity (400).
 */
import { assertNever } from "../common/assert.js";
import type { ProvisionedIdentity, Rejection } from "@market-service/client/wire";
import { isoFromMs, parseDateTimeMs } from "../common/time.js";
import { actorView, delegationView, keyView, principalView, type IdentityState } from "./state.js";
import type { AnyIdentityCommand, CommandMeta, Decision, IdentityEvent, IssueDelegationArgs, ProvisionArgs, RevokeDelegationArgs, TokenIssueCommand } from "./types.js";

function reject(code: Rejection["code"], message: string): Decision {
  return { accepted: false, rejection: { code, message } };
}

function accept(events: IdentityEvent[], status: 200 | 201, body: unknown): Decision {
  return { accepted: true, events, reply: { ok: true, status, body } };
}

export function decide(state: IdentityState, command: AnyIdentityCommand): Decision {
  switch (command.type) {
    case "identity.provision":
      return decideProvision(state, command.meta, command.args);
    case "delegation.issue":
      return decideIssueDelegation(state, command.meta, command.args);
    case "delegation.revoke":
      return decideRevokeDelegation(state, command.meta, command.args);
    case "actor.disable": {
      const actor = state.actors.get(command.args.actorId);
      if (actor === undefined) return reject("identity_not_found", `actor "${command.args.actorId}" does not exist`);
      if (actor.disabledAtMs !== undefined) return reject("identity_conflict", `actor "${actor.id}" is already disabled`);
      const atMs = command.meta.atMs;
      return accept([{ type: "actor.disabled", actorId: actor.id, atMs }], 200, {
        ...actorView(actor),
        disabledAt: isoFromMs(atMs),
      });
    }
    case "principal.disable": {
      const principal = state.principals.get(command.args.principalId);
      if (principal === undefined) {
        return reject("identity_not_found", `principal "${command.args.principalId}" does not exist`);
      }
      if (principal.disabledAtMs !== undefined) {
        return reject("identity_conflict", `principal "${principal.id}" is already disabled`);
      }
      const atMs = command.meta.atMs;
      return accept([{ type: "principal.disabled", principalId: principal.id, atMs }], 200, {
        ...principalView(principal),
        disabledAt: isoFromMs(atMs),
      });
    }
    case "key.revoke": {
      const key = state.keys.get(command.args.keyId);
      if (key === undefined) return reject("identity_not_found", `key "${command.args.keyId}" does not exist`);
      if (key.revokedAtMs !== undefined) return reject("identity_conflict", `key "${key.id}" is already revoked`);
      const atMs = command.meta.atMs;
      return accept([{ type: "key.revoked", keyId: key.id, atMs }], 200, { ...keyView(key), revokedAt: isoFromMs(atMs) });
    }
    case "token.issue":
      return decideTokenIssue(state, command);
    default:
      return assertNever(command, "identity command");
  }
}

/**
 * Provisioning binds principal ↔ actor ↔ key ↔ public key, all four together. It is accepted when
 * none of the four exists (creates them), or when all four exist bound exactly to each other by one
 * earlier provisioning (no change; the reply shows the existing resources). Anything in between is
 * `identity_conflict`: a second key for an existing actor, an existing actor under a new principal,
 * a known public key under a new key id, ... (key rotation is not offered, spec §1).
 */
function decideProvision(state: IdentityState, meta: CommandMeta, args: ProvisionArgs): Decision {
  const principal = state.principals.get(args.principalId);
  const actor = state.actors.get(args.actorId);
  const key = state.keys.get(args.keyId);
  const keyIdOfPublicKey = state.keyIdByPublicKey.get(args.publicKey);

  if (principal === undefined && actor === undefined && key === undefined && keyIdOfPublicKey === undefined) {
    const atMs = meta.atMs;
    const createdAt = isoFromMs(atMs);
    const body: ProvisionedIdentity = {
      principal: { id: args.principalId, createdAt },
      actor: { id: args.actorId, createdAt },
      key: { id: args.keyId, actorId: args.actorId, algorithm: "Ed25519", publicKey: args.publicKey, createdAt },
    };
    return accept([{ type: "identity.provisioned", ...args, atMs }], 201, body);
  }

  const conflict = (what: string): Decision =>
    reject("identity_conflict", `${what} is already bound to different key material`);
  if (principal === undefined) return conflict(describeFirstExisting(state, args));
  if (principal.actorId !== args.actorId || principal.keyId !== args.keyId) return conflict(`principal "${args.principalId}"`);
  if (actor === undefined || actor.principalId !== args.principalId || actor.keyId !== args.keyId) {
    return conflict(`actor "${args.actorId}"`);
  }
  if (key === undefined || key.actorId !== args.actorId || key.publicKey !== args.publicKey) {
    return conflict(`key "${args.keyId}"`);
  }
  const body: ProvisionedIdentity = { principal: principalView(principal), actor: actorView(actor), key: keyView(key) };
  return accept([], 201, body);
}

function describeFirstExisting(state: IdentityState, args: ProvisionArgs): string {
  if (state.actors.has(args.actorId)) return `actor "${args.actorId}"`;
  if (state.keys.has(args.keyId)) return `key "${args.keyId}"`;
  return "publicKey";
}

function decideIssueDelegation(state: IdentityState, meta: CommandMeta, args: IssueDelegationArgs): Decision {
  if (meta.actorId !== args.principalId) {
    return reject("forbidden", "only the principal itself can issue its delegations");
  }
  const principal = state.principals.get(args.principalId);
  if (principal === undefined) return reject("identity_not_found", `principal "${args.principalId}" does not exist`);
  if (!state.actors.has(args.delegateActorId)) {
    return reject("identity_not_found", `actor "${args.delegateActorId}" does not exist`);
  }
  if (principal.disabledAtMs !== undefined) return reject("forbidden", `principal "${principal.id}" is disabled`);
  if (state.delegations.has(args.delegationId)) {
    return reject("delegation_conflict", `delegation "${args.delegationId}" already exists`);
  }
  let validUntilMs: number | undefined;
  if (args.validUntil !== undefined) {
    validUntilMs = parseDateTimeMs(args.validUntil);
    if (validUntilMs === undefined) return reject("invalid_command", "validUntil must be an RFC 3339 date-time");
    if (validUntilMs <= meta.atMs) return reject("invalid_command", "validUntil must be after the command time");
  }
  const event: IdentityEvent = {
    type: "delegation.issued",
    delegationId: args.delegationId,
    principalId: args.principalId,
    actorId: args.delegateActorId,
    scopes: [...args.scopes],
    validFromMs: meta.atMs,
  };
  if (validUntilMs !== undefined) event.validUntilMs = validUntilMs;
  const body = delegationView({
    id: args.delegationId,
    principalId: args.principalId,
    actorId: args.delegateActorId,
    scopes: args.scopes,
    validFromMs: meta.atMs,
    validUntilMs,
    revokedAtMs: undefined,
  });
  return accept([event], 201, body);
}

function decideRevokeDelegation(state: IdentityState, meta: CommandMeta, args: RevokeDelegationArgs): Decision {
  if (meta.actorId !== args.principalId) {
    return reject("forbidden", "only the principal itself can revoke its delegations");
  }
  const delegation = state.delegations.get(args.delegationId);
  if (delegation === undefined) {
    return reject("delegation_not_found", `delegation "${args.delegationId}" does not exist`);
  }
  if (delegation.principalId !== args.principalId) {
    return reject("forbidden", `delegation "${args.delegationId}" belongs to another principal`);
  }
  if (delegation.revokedAtMs !== undefined) {
    return reject("delegation_conflict", `delegation "${args.delegationId}" is already revoked`);
  }
  const atMs = meta.atMs;
  return accept([{ type: "delegation.revoked", delegationId: delegation.id, atMs }], 200, {
    ...delegationView(delegation),
    revokedAt: isoFromMs(atMs),
  });
}

/** Re-checks, at the moment it is logged, what the challenge check saw: actor and key still active. */
function decideTokenIssue(state: IdentityState, command: TokenIssueCommand): Decision {
  const token = command.args;
  const key = state.keys.get(token.keyId);
  const actor = state.actors.get(token.actorId);
  if (
    key === undefined ||
    actor === undefined ||
    key.actorId !== actor.id ||
    key.revokedAtMs !== undefined ||
    actor.disabledAtMs !== undefined
  ) {
    return reject("unauthenticated", "request authentication failed");
  }
  if (state.tokens.has(token.hash) || !(token.expiresAtMs > token.issuedAtMs)) {
    // A repeated 256-bit random token, or a token that is born expired, is a bug upstream.
    return reject("internal_error", "token record is not valid");
  }
  return accept([{ type: "token.issued", token: { ...token } }], 201, null);
}
