/**
 * Client side of `service-hmac-v1` (spec §5.2), in pure JavaScript (@noble/hashes): returns the
 * three headers to send. Sign the exact bytes you send: re-serializing the body afterwards breaks
 * the signature.
 */
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { base64UrlEncode } from "./wire/index.js";

export interface HmacSigningInput {
  readonly actorId: string;
  /** The actor's secret text; its UTF-8 bytes are the HMAC key. */
  readonly secret: string;
  /** Sent upper-case in the canonical string. */
  readonly method: string;
  /** Request target: path plus `?query`, exactly as it will be sent. */
  readonly uri: string;
  /** Exact body bytes (a string is taken as its UTF-8 bytes); omit for no body. */
  readonly body?: Uint8Array | string;
  /** Unix time in whole seconds. */
  readonly timestampSeconds: number;
}

export interface ServiceHmacHeaders {
  readonly "X-Service-Actor": string;
  readonly "X-Service-Timestamp": string;
  readonly Authorization: string;
}

export function canonicalHmacString(input: Omit<HmacSigningInput, "secret">): string {
  const body = input.body === undefined ? new Uint8Array(0) : typeof input.body === "string" ? utf8ToBytes(input.body) : input.body;
  if (!Number.isSafeInteger(input.timestampSeconds) || input.timestampSeconds < 0) {
    throw new Error("timestampSeconds must be a non-negative integer");
  }
  return [
    "service-hmac-v1",
    input.actorId,
    String(input.timestampSeconds),
    input.method.toUpperCase(),
    input.uri,
    bytesToHex(sha256(body)),
  ].join("\n");
}

export function signHmacRequest(input: HmacSigningInput): ServiceHmacHeaders {
  const signature = hmac(sha256, utf8ToBytes(input.secret), utf8ToBytes(canonicalHmacString(input)));
  return {
    "X-Service-Actor": input.actorId,
    "X-Service-Timestamp": String(input.timestampSeconds),
    Authorization: `Service-HMAC ${base64UrlEncode(signature)}`,
  };
}
