/**
 * The cluster's audit key history, recorded once in NATS (KV bucket `cluster-meta`, key
 * `audit-keys`; decisions.md I32 and I35). A partition's log changes owner between
 * nodes, and its heads stay checkable across owners only if every owner signs with the same key and
 * publishes the same history. The first node records its (public) history with KV's create, so of
 * two nodes starting at once exactly one wins; every later node's history is judged against it:
 *
 * - same current key: the node joins and publishes the recorded history;
 * - a history that extends the recorded one (its keys start with the recorded keys, and its chain
 *   verifies): a rotation, recorded by compare-and-swap on the entry's revision;
 * - anything else (another key, or a history the cluster has already rotated past): refused.
 *
 * This module decides and records; the caller (gateway/cluster-node.ts) words the refusal, since only
 * it knows where the node's key came from.
 */
import type { Messaging } from "../messaging/messaging.js";
import { ClusterConfigError } from "../../storage/data-dir-layout.js";
import { withRetries } from "../journal/jetstream-retry.js";
import { clusterMetaBucket } from "./cluster-layout.js";
import { checkKeyHistory, currentKey, verifyKeyHistory, type KeyHistory, type KeyHistoryEntry } from "@market-service/client/audit";

const KEY = "audit-keys";
const OPEN_DEADLINE_MS = 15_000;
/** Compare-and-swap attempts before giving up: each loss means another node changed the record meanwhile. */
const UPDATE_ATTEMPTS = 5;

/** How this node's history stands against the cluster's. */
export type ClusterKeyVerdict =
  /** The record did not exist: this node's history is now the cluster's. */
  | { readonly kind: "recorded"; readonly history: KeyHistory }
  /** The node signs with the recorded current key: the recorded history is published. */
  | { readonly kind: "same"; readonly history: KeyHistory }
  /** The node's history extends the record: recorded now (a rotation from `from`). */
  | { readonly kind: "rotated"; readonly history: KeyHistory; readonly from: KeyHistoryEntry }
  /** Refused: `older` when the node's keys are a strict prefix of the cluster's (the cluster rotated past it). */
  | { readonly kind: "conflict"; readonly recorded: KeyHistory; readonly older: boolean };

function sameEntry(a: KeyHistoryEntry, b: KeyHistoryEntry): boolean {
  return a.keyId === b.keyId && a.publicKey === b.publicKey && a.activatedAtMs === b.activatedAtMs && a.endorsement === b.endorsement;
}

/** Whether `prefix`'s keys are the first keys of `history`, entry for entry. */
function startsWith(history: KeyHistory, prefix: KeyHistory): boolean {
  return prefix.keys.length <= history.keys.length && prefix.keys.every((entry, index) => {
    const other = history.keys[index];
    return other !== undefined && sameEntry(entry, other);
  });
}

/**
 * The verdict on `own` against `recorded`, both already checked (pure). Same current key wins first:
 * a node started without AUDIT_KEY_HISTORY_FILE on the cluster's current key signs what the cluster
 * signs, and publishes the cluster's history.
 */
export function judgeKeyHistory(recorded: KeyHistory, own: KeyHistory): "same" | "extends" | "older" | "other" {
  if (currentKey(recorded).keyId === currentKey(own).keyId) return "same";
  if (own.keys.length > recorded.keys.length && startsWith(own, recorded) && verifyKeyHistory(own).ok) return "extends";
  if (startsWith(recorded, own)) return "older";
  return "other";
}

function parseRecorded(bytes: Uint8Array): KeyHistory {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw new ClusterConfigError(`the cluster's audit key history (NATS KV cluster-meta/${KEY}) is not valid JSON`);
  }
  const checked = checkKeyHistory(value);
  if (!checked.ok) throw new ClusterConfigError(`the cluster's audit key history (NATS KV cluster-meta/${KEY}) is not a valid key history: ${checked.problem}`);
  return checked.history;
}

/**
 * Records `own` as the cluster's history when there is none, else judges it against the record and
 * records a rotation. Never throws for a conflict: the verdict says so and the caller refuses.
 */
export async function openClusterKeyHistory(messaging: Messaging, own: KeyHistory, replicas = 3): Promise<ClusterKeyVerdict> {
  return withRetries(messaging.timers, "reading the cluster's audit key history", OPEN_DEADLINE_MS, async () => {
    const kv = await clusterMetaBucket(messaging, replicas);
    const encoded = new TextEncoder().encode(JSON.stringify(own));
    for (let attempt = 1; ; attempt += 1) {
      const existing = await kv.get(KEY);
      if (existing === null || existing.operation !== "PUT") {
        try {
          await kv.create(KEY, encoded);
          return { kind: "recorded", history: own };
        } catch (error) {
          // Another node recorded first (or our create landed and timed out): judge against the record.
          if ((await kv.get(KEY)) === null || attempt >= UPDATE_ATTEMPTS) throw error;
          continue;
        }
      }
      const recorded = parseRecorded(existing.value);
      const verdict = judgeKeyHistory(recorded, own);
      if (verdict === "same") return { kind: "same", history: recorded };
      if (verdict === "older" || verdict === "other") return { kind: "conflict", recorded, older: verdict === "older" };
      try {
        await kv.update(KEY, encoded, existing.revision);
        return { kind: "rotated", history: own, from: currentKey(recorded) };
      } catch (error) {
        // Another node changed the record since it was read: read it again and judge anew.
        if (attempt >= UPDATE_ATTEMPTS) throw error;
      }
    }
  });
}
