/**
 * Cluster mode's challenge store (gateway/auth/challenge-store.ts): outstanding challenges in the
 * NATS KV bucket `auth-challenges`, shared by every node, so a challenge any node issued can be
 * redeemed at any node, exactly once, within its lifetime (docs/auth.md "Challenges in cluster
 * mode", decisions.md I40). Loaded only in cluster mode (through cluster-node.ts).
 *
 * - One key per challenge: its id (22 base64url characters, a valid KV key). The value is JSON
 *   `{v, actorId, keyId, nonceHash, expiresAtMs, audience}`: the nonce only as its SHA-256, the
 *   expiry in the value, judged by the redeeming node's clock (nats-server 2.10 ignores per-key
 *   TTLs, so the expiry cannot be the bucket's business).
 * - add: KV create (a new random id; 128 bits).
 * - find: KV get, answered by the stream's leader (allow_direct off), which holds every acknowledged
 *   write: a challenge is found on every node as soon as its creation returned to the issuer.
 * - consume: KV delete with the revision found as the key's expected last revision. Of any
 *   number of nodes consuming one challenge at once, JetStream accepts exactly one; the others are
 *   refused (wrong last sequence) and get "gone". The delete leaves a marker, which replaces the
 *   record (history 1): the nonce's hash goes with it.
 * - Bounds: the bucket's stream keeps at most `maxChallenges` messages and drops the oldest beyond
 *   (discard old, unlike a KV bucket's default: a flood shortens how long a challenge survives
 *   instead of locking sign-in out, as on one node), and forgets every message after the longest
 *   challenge lifetime the settings allow (max_age), so records of challenges never redeemed and
 *   the markers of consumed ones need no sweeping.
 * - Every request gives up after `requestTimeoutMs`; a failure is "unavailable" (503 with
 *   Retry-After to the client), never a refusal.
 */
import type { KvBucket } from "../engine/messaging/kv.js";
import { isMessagingFailure } from "../engine/messaging/messaging-error.js";
import type { Messaging } from "../engine/messaging/messaging.js";
import { withRetries } from "../engine/journal/jetstream-retry.js";
import { isoFromMs } from "../engine/rules/common/time.js";
import type { ChallengeStore, FoundChallenge, PendingChallenge } from "./auth/challenge-store.js";
import { MAX_CHALLENGE_TTL_SECONDS } from "./auth/config.js";

export const CHALLENGE_BUCKET = "auth-challenges";
const RECORD_VERSION = 1;
/** Longer than any challenge lives (AUTH_CHALLENGE_TTL at most), with a margin for clocks apart. */
const RETAIN_MS = (MAX_CHALLENGE_TTL_SECONDS + 60) * 1_000;
/** How long a node waits for the bucket at start (a cluster starting together elects its leaders meanwhile). */
const OPEN_DEADLINE_MS = 15_000;

export interface ClusterChallengeStoreOptions {
  /** The node's connection (the caller's; never closed here). */
  readonly messaging: Messaging;
  /** The bound on messages the bucket keeps (AuthConfig.maxChallenges). */
  readonly maxChallenges: number;
  /** Each request's deadline: the node's reply deadline (CLUSTER_FORWARD_TIMEOUT_MS). */
  readonly requestTimeoutMs: number;
  readonly replicas?: number;
  /** Another bucket than `auth-challenges` (tests). */
  readonly bucket?: string;
}

interface ChallengeRecord {
  readonly v: number;
  readonly actorId: string;
  readonly keyId: string;
  /** Unpadded base64url of the nonce's SHA-256. */
  readonly nonceHash: string;
  readonly expiresAtMs: number;
  readonly audience: string;
}

function encodeRecord(challenge: PendingChallenge): string {
  const record: ChallengeRecord = {
    v: RECORD_VERSION,
    actorId: challenge.actorId,
    keyId: challenge.keyId,
    nonceHash: challenge.nonceHash.toString("base64url"),
    expiresAtMs: challenge.expiresAtMs,
    audience: challenge.audience,
  };
  return JSON.stringify(record);
}

/** The challenge a record holds, or undefined if it is not one this build wrote (it then names no challenge). */
function decodeRecord(bytes: Uint8Array): PendingChallenge | undefined {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(bytes).toString("utf8"));
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const record = value as Partial<Record<keyof ChallengeRecord, unknown>>;
  const { actorId, keyId, nonceHash, expiresAtMs, audience } = record;
  if (record.v !== RECORD_VERSION || typeof actorId !== "string" || typeof keyId !== "string" || typeof audience !== "string") return undefined;
  if (typeof nonceHash !== "string" || typeof expiresAtMs !== "number" || !Number.isSafeInteger(expiresAtMs)) return undefined;
  return { actorId, keyId, audience, nonceHash: Buffer.from(nonceHash, "base64url"), expiresAtMs, expiresAt: isoFromMs(expiresAtMs) };
}

/** Opens (creating if need be) the cluster's challenge bucket; retried until a start-up deadline. */
export async function openClusterChallengeStore(options: ClusterChallengeStoreOptions): Promise<ClusterChallengeStore> {
  const { messaging, maxChallenges, requestTimeoutMs } = options;
  const replicas = options.replicas ?? 3;
  const bucket = options.bucket ?? CHALLENGE_BUCKET;
  const { timers } = messaging;
  const kv = await withRetries(timers, `opening the challenge bucket ${bucket}`, OPEN_DEADLINE_MS, () =>
    messaging.jetStream(requestTimeoutMs).kv.open(bucket, { replicas, history: 1, bounds: { maxMessages: maxChallenges, maxAgeMs: RETAIN_MS } }),
  );
  // A bucket just created answers nothing until its stream has a leader: wait for one read to go through.
  await withRetries(timers, `reading the challenge bucket ${bucket}`, OPEN_DEADLINE_MS, () => kv.get("absent"));
  return new ClusterChallengeStore(kv);
}

export class ClusterChallengeStore implements ChallengeStore {
  /** The bucket's messages are not counted here: `nats kv status auth-challenges` shows them. */
  readonly size = undefined;

  /** `kv`'s requests give up after the store's request timeout (the bucket was opened with it). */
  constructor(private readonly kv: KvBucket) {}

  async add(id: string, challenge: PendingChallenge): Promise<"added" | "unavailable"> {
    try {
      // Revision 0: only if the key has never been written (the id is new).
      await this.kv.update(id, Buffer.from(encodeRecord(challenge)), 0);
      return "added";
    } catch {
      return "unavailable";
    }
  }

  async find(id: string): Promise<FoundChallenge | undefined | "unavailable"> {
    let entry;
    try {
      entry = await this.kv.get(id);
    } catch {
      return "unavailable";
    }
    if (entry === null || entry.operation !== "PUT") return undefined;
    const challenge = decodeRecord(entry.value);
    return challenge === undefined ? undefined : { challenge, version: entry.revision };
  }

  async consume(id: string, found: FoundChallenge): Promise<"consumed" | "gone" | "unavailable"> {
    try {
      await this.kv.delete(id, found.version);
      return "consumed";
    } catch (error) {
      // Another attempt, on this node or another, consumed it first.
      if (isMessagingFailure(error, "wrong-last-sequence")) return "gone";
      return "unavailable";
    }
  }
}
