/**
 * Request ids: every response carries `x-request-id`, and every log line about a request names it,
 * so a client report and the server log can be joined.
 *
 * An incoming id is echoed only when it is short and made of characters that are safe in headers,
 * logs and terminals; anything else is replaced (never rejected: a bad id is not worth a 400).
 */
import { randomFillSync } from "node:crypto";

export const REQUEST_ID_HEADER = "x-request-id";
export const MAX_REQUEST_ID_CHARS = 128;
/** Generated ids: 16 random bytes (128 bits) as unpadded base64url, 22 characters. */
export const GENERATED_REQUEST_ID_BYTES = 16;

const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function isSaneRequestId(candidate: string): boolean {
  return candidate.length <= MAX_REQUEST_ID_CHARS && SANE_REQUEST_ID.test(candidate);
}

/**
 * Random bytes are drawn in batches: one `randomFillSync` per 256 ids instead of one syscall-backed
 * call per request, which matters at 50k+ requests/s.
 */
const IDS_PER_BATCH = 256;
const pool = Buffer.alloc(GENERATED_REQUEST_ID_BYTES * IDS_PER_BATCH);
let poolOffsetBytes = pool.length;

export function generateRequestId(): string {
  if (poolOffsetBytes === pool.length) {
    randomFillSync(pool);
    poolOffsetBytes = 0;
  }
  const id = pool.toString("base64url", poolOffsetBytes, poolOffsetBytes + GENERATED_REQUEST_ID_BYTES);
  poolOffsetBytes += GENERATED_REQUEST_ID_BYTES;
  return id;
}

/** The id for a request given its `x-request-id` header ("" when absent). */
export function requestIdFor(incoming: string): string {
  return incoming.length > 0 && isSaneRequestId(incoming) ? incoming : generateRequestId();
}
