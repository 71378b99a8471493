/**
 * The values kept in the lease bucket, as JSON, and the keys they live under.
 *
 * - `partition.<p>`: `{ node, epoch, expiresAtMs }`, the partition's lease. `node` is null once the
 *   lease was released; the key is never deleted, so the epoch only ever grows.
 * - `node.<id>`: `{ node, expiresAtMs }`, a node's heartbeat: the node is live until that instant.
 *
 * Expiry is an instant in the value, judged by each reader's clock: per-key TTL is accepted and
 * ignored by nats-server 2.10 (docs/cluster.md, "Ownership: leases"), and a bucket-wide max age would drop a
 * released lease's epoch.
 */

export interface LeaseValue {
  readonly node: string | null;
  readonly epoch: number;
  readonly expiresAtMs: number;
}

export interface HeartbeatValue {
  readonly node: string;
  readonly expiresAtMs: number;
}

export const NODE_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

export const partitionKey = (partition: number): string => `partition.${partition}`;
export const heartbeatKey = (node: string): string => `node.${node}`;
/** The heartbeat keys, as a filter on the bucket's keys. */
export const HEARTBEAT_KEYS = "node.*";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeLease(value: LeaseValue): Uint8Array {
  return encoder.encode(JSON.stringify({ node: value.node, epoch: value.epoch, expiresAtMs: value.expiresAtMs }));
}

export function encodeHeartbeat(value: HeartbeatValue): Uint8Array {
  return encoder.encode(JSON.stringify({ node: value.node, expiresAtMs: value.expiresAtMs }));
}

function parseObject(bytes: Uint8Array, what: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(decoder.decode(bytes));
  } catch {
    throw new Error(`${what} is not JSON`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error(`${what} is not a JSON object`);
  return parsed as Record<string, unknown>;
}

const isInstant = (value: unknown): value is number => typeof value === "number" && Number.isSafeInteger(value) && value >= 0;

/** Reads a lease; throws naming the field when the value is not one this code writes. */
export function decodeLease(bytes: Uint8Array, key: string): LeaseValue {
  const object = parseObject(bytes, `lease ${key}`);
  const { node, epoch, expiresAtMs } = object;
  if (!(node === null || (typeof node === "string" && NODE_ID_PATTERN.test(node)))) throw new Error(`lease ${key}: node must be null or a node id`);
  if (!(typeof epoch === "number" && Number.isSafeInteger(epoch) && epoch >= 1)) throw new Error(`lease ${key}: epoch must be a positive integer`);
  if (!isInstant(expiresAtMs)) throw new Error(`lease ${key}: expiresAtMs must be a non-negative integer`);
  return { node, epoch, expiresAtMs };
}

/** Reads a heartbeat; throws naming the field when the value is not one this code writes. */
export function decodeHeartbeat(bytes: Uint8Array, key: string): HeartbeatValue {
  const object = parseObject(bytes, `heartbeat ${key}`);
  const { node, expiresAtMs } = object;
  if (!(typeof node === "string" && NODE_ID_PATTERN.test(node))) throw new Error(`heartbeat ${key}: node must be a node id`);
  if (!isInstant(expiresAtMs)) throw new Error(`heartbeat ${key}: expiresAtMs must be a non-negative integer`);
  return { node, expiresAtMs };
}
