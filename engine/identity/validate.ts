/**
 * Static checks and normalization of identity command bodies: everything that depends only on the
 * request, never on state or time. A body that fails here is refused before its idempotency key is
 * claimed and is not logged: the same body always fails the same way, so there is nothing to
 * remember (see docs/auth.md, "What is recorded").
 *
 * The HTTP layer has already validated the body's shape with typia (packages/client/src/wire/identity.ts);
 * these checks repeat the rules that matter for safety so that any other caller (CLI, tests, MCP)
 * gets the same answers, and add what a schema cannot say.
 */
import { Point } from "@noble/ed25519";
import { AUTHORITY_SCOPES, type AuthorityScope, isDotSegment, type IssueDelegationBody, MAX_IDENTIFIER_LENGTH, type ProvisionIdentityBody, type Rejection, type RevokeDelegationBody, strictBytesOfBase64url } from "@market-service/client/wire";
import { isoFromMs, parseDateTimeMs } from "../rules/common/time.js";
import type { IssueDelegationArgs, ProvisionArgs, RevokeDelegationArgs } from "../rules/identity/types.js";

/** Identity of the service's own commands (decisions.md E8); it can never be provisioned or used. */
export const SYSTEM_ID = "@system";

export const PUBLIC_KEY_BYTES = 32;
export const PUBLIC_KEY_TEXT_LENGTH = 43;

// No C0 control character or DEL (decisions.md D10): they would corrupt logs, and the signing
// payload and HMAC canonical string rely on identifiers never containing a newline.
const IDENTIFIER_PATTERN = /^[^\u0000-\u001F\u007F]+$/;

export function isIdentifier(value: unknown): value is string {
  return (
    typeof value === "string" &&
    value.length >= 1 &&
    value.length <= MAX_IDENTIFIER_LENGTH &&
    IDENTIFIER_PATTERN.test(value)
  );
}

/**
 * Strict unpadded base64url decode (the one codec, packages/client/src/wire/base64url.ts): only the URL
 * alphabet, no padding, and the canonical encoding (unused trailing bits zero), so one byte string
 * has exactly one accepted text. A Buffer over the decoded bytes, for node:crypto.
 */
export function decodeBase64UrlStrict(text: string): Buffer | undefined {
  const bytes = strictBytesOfBase64url(text);
  return bytes === undefined ? undefined : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * Decodes a `publicKey` field: exactly 43 characters of canonical unpadded base64url, 32 bytes, and
 * a valid Ed25519 point encoding (a key that can never verify anything is refused up front).
 */
export function decodePublicKey(text: unknown): Buffer | undefined {
  if (typeof text !== "string" || text.length !== PUBLIC_KEY_TEXT_LENGTH) return undefined;
  const bytes = decodeBase64UrlStrict(text);
  if (bytes === undefined || bytes.length !== PUBLIC_KEY_BYTES) return undefined;
  try {
    Point.fromBytes(bytes);
  } catch {
    return undefined;
  }
  return bytes;
}

function invalid(message: string): Rejection {
  return { code: "invalid_command", message };
}

/** Fields naming a principal or an actor, where the service's own `@system` must never appear. */
const IDENTITY_FIELDS = new Set(["principalId", "actorId", "delegateActorId"]);

function identifierProblem(field: string, value: unknown): Rejection | undefined {
  if (!isIdentifier(value)) {
    return invalid(`${field} must be 1 to ${MAX_IDENTIFIER_LENGTH} characters without control characters`);
  }
  if (value === SYSTEM_ID && IDENTITY_FIELDS.has(field)) {
    return invalid(`${field} "${SYSTEM_ID}" is reserved for the service`);
  }
  return undefined;
}

function firstProblem(checks: ReadonlyArray<readonly [string, unknown]>): Rejection | undefined {
  for (const [field, value] of checks) {
    const problem = identifierProblem(field, value);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

export type Prepared<Args> = { ok: true; commandId: string; args: Args } | { ok: false; rejection: Rejection };

export function prepareProvision(body: ProvisionIdentityBody): Prepared<ProvisionArgs> {
  const problem = firstProblem([
    ["commandId", body.commandId],
    ["principalId", body.principalId],
    ["actorId", body.actorId],
    ["keyId", body.keyId],
  ]);
  if (problem !== undefined) return { ok: false, rejection: problem };
  if (decodePublicKey(body.publicKey) === undefined) {
    return {
      ok: false,
      rejection: invalid("publicKey must be 43 characters of unpadded base64url encoding a 32-byte Ed25519 public key"),
    };
  }
  return {
    ok: true,
    commandId: body.commandId,
    args: { principalId: body.principalId, actorId: body.actorId, keyId: body.keyId, publicKey: body.publicKey },
  };
}

const SCOPE_ORDER = new Map<string, number>(AUTHORITY_SCOPES.map((scope, index) => [scope, index]));

/** Scopes in canonical order, or undefined when empty, repeated or unknown. */
export function normalizeScopes(scopes: unknown): AuthorityScope[] | undefined {
  if (!Array.isArray(scopes) || scopes.length === 0 || scopes.length > AUTHORITY_SCOPES.length) return undefined;
  const seen = new Set<string>();
  for (const scope of scopes) {
    if (typeof scope !== "string" || !SCOPE_ORDER.has(scope) || seen.has(scope)) return undefined;
    seen.add(scope);
  }
  return AUTHORITY_SCOPES.filter((scope) => seen.has(scope));
}

export function prepareIssueDelegation(body: IssueDelegationBody): Prepared<IssueDelegationArgs> {
  const problem = firstProblem([
    ["commandId", body.commandId],
    ["delegationId", body.delegationId],
    ["principalId", body.principalId],
    ["delegateActorId", body.delegateActorId],
  ]);
  if (problem !== undefined) return { ok: false, rejection: problem };
  if (isDotSegment(body.delegationId)) {
    // Its revoke path could never be named (shared.ts PathIdentifier).
    return { ok: false, rejection: invalid('delegationId may not be "." or ".."') };
  }
  const scopes = normalizeScopes(body.scopes);
  if (scopes === undefined) {
    return {
      ok: false,
      rejection: invalid(`scopes must list 1 to ${AUTHORITY_SCOPES.length} distinct authority scopes`),
    };
  }
  if (body.delegateActorId === body.principalId) {
    // Self-action never uses a delegation (authority.ts), so such a delegation could never be used.
    return { ok: false, rejection: invalid("delegateActorId must differ from principalId") };
  }
  const args: IssueDelegationArgs = {
    delegationId: body.delegationId,
    principalId: body.principalId,
    delegateActorId: body.delegateActorId,
    scopes,
  };
  if (body.validUntil !== undefined) {
    const validUntilMs = typeof body.validUntil === "string" ? parseDateTimeMs(body.validUntil) : undefined;
    if (validUntilMs === undefined || Math.abs(validUntilMs) > 8.64e15) {
      return { ok: false, rejection: invalid("validUntil must be an RFC 3339 date-time") };
    }
    args.validUntil = isoFromMs(validUntilMs);
  }
  return { ok: true, commandId: body.commandId, args };
}

export function prepareRevokeDelegation(delegationId: string, body: RevokeDelegationBody): Prepared<RevokeDelegationArgs> {
  const problem = firstProblem([
    ["commandId", body.commandId],
    ["delegationId", delegationId],
    ["principalId", body.principalId],
  ]);
  if (problem !== undefined) return { ok: false, rejection: problem };
  return { ok: true, commandId: body.commandId, args: { delegationId, principalId: body.principalId } };
}

/** One-identifier operator commands (disable actor/principal, revoke key). */
export function prepareSingleId<Field extends string>(
  commandId: unknown,
  field: Field,
  value: unknown,
): Prepared<Record<Field, string>> {
  const problem = firstProblem([
    ["commandId", commandId],
    [field, value],
  ]);
  if (problem !== undefined) return { ok: false, rejection: problem };
  return { ok: true, commandId: commandId as string, args: { [field]: value as string } as Record<Field, string> };
}
