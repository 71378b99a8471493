/**
 * Spec §5.2, `service-hmac-v1` request signing, exactly:
 *
 *   canonical = "service-hmac-v1" LF actorId LF timestamp LF METHOD LF requestUri LF hex(sha256(body))
 *   signature = base64url-unpadded(HMAC-SHA256(key = UTF-8 bytes of the actor's secret, canonical))
 *   headers:    X-Service-Actor, X-Service-Timestamp, Authorization: Service-HMAC <signature>
 *
 * - `timestamp` is the X-Service-Timestamp text as sent: a decimal Unix time in seconds without sign
 *   or leading zeros; accepted when |timestamp·1000 − server time ms| ≤ skew·1000 (both directions).
 * - `METHOD` is the request method upper-cased by the server; `requestUri` is the raw request target
 *   (path plus `?query` if any), exactly as received, no scheme or host, no decoding.
 * - The comparison is constant-time (`timingSafeEqual` on two 32-byte digests), and an unknown
 *   actor is checked against a throw-away key so that it takes the same time as a wrong signature.
 * - No replay cache: a captured request can be replayed within the skew window; commands are
 *   idempotent through commandId, so a replay repeats a reply, never an effect.
 */
import { createHmac, hash, randomBytes, timingSafeEqual } from "node:crypto";
import { strictBytesOfBase64url } from "@market-service/client/wire";

export const HMAC_SCHEME = "Service-HMAC";
export const HMAC_CANONICAL_PREFIX = "service-hmac-v1";
const HMAC_SIGNATURE_TEXT_LENGTH = 43; // 32 bytes, unpadded base64url
const TIMESTAMP_PATTERN = /^(?:0|[1-9][0-9]{0,14})$/;

/** Used for unknown actors so that the failure costs one HMAC like any other. */
const DECOY_KEY = randomBytes(32);

export interface HmacRequest {
  readonly actorHeader: string | undefined;
  readonly timestampHeader: string | undefined;
  readonly authorizationHeader: string | undefined;
  readonly method: string;
  /** Raw request target: path plus `?query`, as received. */
  readonly uri: string;
  /** The exact body bytes received (empty when there is no body). */
  readonly bodyBytes: Uint8Array;
}

export interface HmacSettings {
  readonly hmacSecrets: ReadonlyMap<string, Buffer>;
  readonly hmacClockSkewSeconds: number;
}

/** SHA-256 of no bytes: most signed requests are GETs without a body. */
const EMPTY_BODY_SHA256_HEX = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

export function sha256Hex(bytes: Uint8Array): string {
  // One-shot `hash` is cheaper than createHash().update().digest() for small inputs.
  return bytes.length === 0 ? EMPTY_BODY_SHA256_HEX : hash("sha256", bytes, "hex");
}

export function hmacCanonicalString(
  actorId: string,
  timestamp: string,
  method: string,
  uri: string,
  bodySha256Hex: string,
): string {
  return `${HMAC_CANONICAL_PREFIX}\n${actorId}\n${timestamp}\n${method}\n${uri}\n${bodySha256Hex}`;
}

/** The signature bytes for a canonical string. */
export function hmacDigest(secretKey: Uint8Array, canonical: string): Buffer {
  return createHmac("sha256", secretKey).update(canonical, "utf8").digest();
}

/**
 * The 32 signature bytes of `Service-HMAC <signature>`; undefined if the header is not that form.
 * Decoded with the wire's one strict decoder (no padding, canonical trailing bits): Buffer's would
 * take several texts for one signature.
 */
export function parseHmacAuthorization(header: string): Uint8Array | undefined {
  const space = header.indexOf(" ");
  if (space !== HMAC_SCHEME.length || header.slice(0, space).toLowerCase() !== "service-hmac") return undefined;
  const signature = header.slice(space + 1).trim();
  if (signature.length !== HMAC_SIGNATURE_TEXT_LENGTH) return undefined;
  const bytes = strictBytesOfBase64url(signature);
  return bytes?.length === 32 ? bytes : undefined;
}

/** The actor id when the request carries a valid `service-hmac-v1` signature, else undefined. */
export function verifyHmacRequest(settings: HmacSettings, request: HmacRequest, nowMs: number): string | undefined {
  const { actorHeader: actorId, timestampHeader: timestamp, authorizationHeader } = request;
  if (actorId === undefined || timestamp === undefined || authorizationHeader === undefined) return undefined;
  const signature = parseHmacAuthorization(authorizationHeader);
  if (signature === undefined || !TIMESTAMP_PATTERN.test(timestamp)) return undefined;
  const skewMs = settings.hmacClockSkewSeconds * 1000;
  if (Math.abs(Number(timestamp) * 1000 - nowMs) > skewMs) return undefined;

  const secret = settings.hmacSecrets.get(actorId);
  const canonical = hmacCanonicalString(
    actorId,
    timestamp,
    request.method.toUpperCase(),
    request.uri,
    sha256Hex(request.bodyBytes),
  );
  const expected = hmacDigest(secret ?? DECOY_KEY, canonical);
  const matches = signature.length === expected.length && timingSafeEqual(signature, expected);
  return matches && secret !== undefined ? actorId : undefined;
}
