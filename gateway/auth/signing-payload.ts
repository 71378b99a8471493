/**
 * The bytes an actor signs to prove possession of its key (spec §5.1 leaves the contents open).
 *
 * Layout: UTF-8 text of seven lines joined by a single LF (0x0A), no trailing newline:
 *
 *     market-service-auth-v1
 *     <audience>
 *     <challenge id>
 *     <actor id>
 *     <key id>
 *     <nonce>
 *     <expiresAt, RFC 3339 UTC with milliseconds>
 *
 * Every field is bound, so a signature cannot be replayed for another service (audience), another
 * challenge, actor or key, or beyond its expiry. None of the fields can contain a newline
 * (identifiers exclude control characters; the audience is visible ASCII; the rest are generated),
 * so the layout is unambiguous. The version prefix separates these bytes from anything else the key
 * might ever sign.
 */

export const SIGNING_PAYLOAD_PREFIX = "market-service-auth-v1";

export interface SigningPayloadFields {
  readonly audience: string;
  readonly challengeId: string;
  readonly actorId: string;
  readonly keyId: string;
  readonly nonce: string;
  readonly expiresAt: string;
}

export function signingPayloadText(fields: SigningPayloadFields): string {
  return [
    SIGNING_PAYLOAD_PREFIX,
    fields.audience,
    fields.challengeId,
    fields.actorId,
    fields.keyId,
    fields.nonce,
    fields.expiresAt,
  ].join("\n");
}

export function signingPayloadBytes(fields: SigningPayloadFields): Buffer {
  return Buffer.from(signingPayloadText(fields), "utf8");
}
