/**
 * Proofs of a log through a ProofTreeCache (proof-tree-cache.ts): the same proofs, byte for byte, as
 * log-proofs.ts builds from the whole log (the tree of the first n entries is the same tree whether
 * it was built at once or grown), reading only what the kept tree does not hold yet.
 *
 * Two sources, as for every ReplayWork (engine/shard-protocol/shard-protocol.ts):
 * - a view of a shard's segment files: the kept tree remembers where its last entry's frame ended,
 *   and the read resumes there (LogView.framesFrom) up to the view's durable end;
 * - payloads a shard read from its journal (a partition's stream in a cluster, where the pool cannot
 *   read the stream): the shard sends only the entries after the size it last sent (`after`), and
 *   when this thread's kept tree is shorter than that (another thread, an eviction, a restart) the
 *   answer is `{ wantedAfter }`, the size it holds, and the shard is asked again from there
 *   (engine/runtime/shard-answers.ts). An entry a proof shows that lies before `after` travels on its own.
 *
 * Either way the whole available log is taken into the tree, not only the entries up to the size
 * asked: the next proof is then answered from memory, and the check against the writer's root
 * (below) needs the tree at the writer's size.
 *
 * Before a kept tree is used it is checked against the log (proof-tree-cache.ts says why it cannot
 * normally go stale): its last entry read again hashes as kept, and the root the log's writer holds
 * (`anchor`: the shard's own tree, at the size of the entries durable now) comes out of it; a tree
 * that fails is dropped and built again from the first entry.
 */
import { LogView, FRAME_HEADER_BYTES, type LogReadView } from "../../storage/index.js";
import { NODE_TREE_HASHING } from "./node-tree-hashing.js";
import { requestProblem, type LogProof, type LogProofRequest } from "./log-proofs.js";
import { encodeConsistencyProof, encodeInclusionProof, sameHash } from "@market-service/client/audit";
import type { CachedTree, ProofTreeCache } from "./proof-tree-cache.js";

/** A root the log's writer vouches for: its tree of the log's first `size` entries. */
export interface TreeAnchor {
  readonly size: number;
  readonly root: Uint8Array;
}

/** This thread keeps the log's tree only up to `wantedAfter` entries: send the entries after those. */
export interface ProofEntriesWanted {
  readonly wantedAfter: number;
}

/** Payloads a shard read from its journal for a proof: the entries after `after`, in order. */
export interface ShippedEntries {
  readonly after: number;
  readonly payloads: readonly Uint8Array[];
  /** The payload of the inclusion proof's leaf when it lies before `after` (else undefined). */
  readonly entry: Uint8Array | undefined;
}

/** The cache key of a log: its id, and where it is read from (two data directories may hold a `shard-0`). */
function keyOf(logId: string, where: string): string {
  return `${logId}\u0000${where}`;
}

/** Whether the kept tree's root at the anchor's size is the anchor's (true when it cannot say). */
function agreesWith(kept: CachedTree, anchor: TreeAnchor | undefined): boolean {
  if (anchor === undefined || anchor.size < 1 || anchor.size > kept.size) return true;
  return sameHash(kept.tree.rootAt(anchor.size), anchor.root);
}

/** The proof from a tree (`entryAt(i)`: the payload of leaf i, for an inclusion proof). */
function proofFrom(kept: CachedTree, logId: string, request: LogProofRequest, entryAt: (leafIndex: number) => Uint8Array): LogProof {
  const problem = requestProblem(request, logId, kept.size);
  if (problem !== undefined) throw problem;
  if (request.type === "consistency") {
    return { type: "consistency", proof: encodeConsistencyProof({ oldSize: request.oldSize, newSize: request.newSize, path: kept.tree.consistencyProof(request.oldSize, request.newSize) }) };
  }
  return {
    type: "inclusion",
    proof: encodeInclusionProof({ leafIndex: request.leafIndex, treeSize: request.treeSize, path: kept.tree.inclusionProof(request.leafIndex, request.treeSize) }),
    entry: entryAt(request.leafIndex),
  };
}

/** A proof over a view of a shard's segment files, through the cache. */
export function cachedProofFromView(cache: ProofTreeCache, view: LogReadView, logId: string, request: LogProofRequest, anchor?: TreeAnchor): LogProof {
  const key = keyOf(logId, `file:${view.dir}`);
  // An empty log has no segment to view.
  const reader = view.segments.length === 0 ? undefined : new LogView(view);
  try {
    let kept = cache.take(key);
    let hashed = 0;
    let warm = false;
    if (kept !== undefined) {
      if (stillOnDisk(kept, view, reader)) {
        hashed += extendFromView(kept, reader);
        warm = agreesWith(kept, anchor);
      }
      if (!warm) {
        cache.invalidate(key);
        kept = undefined;
      }
    }
    if (kept === undefined) {
      kept = cache.fresh(key);
      hashed += extendFromView(kept, reader);
    }
    const tree = kept;
    cache.answered(warm, hashed);
    cache.keep(key, tree);
    return proofFrom(tree, logId, request, (leafIndex) => Uint8Array.from((reader as LogView).readAt(tree.positions[leafIndex] as number).payload));
  } finally {
    reader?.close();
  }
}

/**
 * Whether the log still holds the kept entries: it reaches as far, and the last kept entry's frame
 * reads back with the kept leaf hash and chain value (the chain value commits to every entry before it).
 */
function stillOnDisk(kept: CachedTree, view: LogReadView, reader: LogView | undefined): boolean {
  if (kept.size === 0) return true;
  if (reader === undefined || kept.endPosition > view.endPosition) return false;
  try {
    const frame = reader.readAt(kept.positions[kept.size - 1] as number);
    return (
      frame.position + FRAME_HEADER_BYTES + frame.payload.length === kept.endPosition &&
      sameHash(NODE_TREE_HASHING.leafHash(frame.payload), kept.tree.leafHashAt(kept.size - 1)) &&
      kept.lastChain !== undefined &&
      sameHash(frame.chain, kept.lastChain)
    );
  } catch {
    // No frame there any more (a shorter or different log): not the kept one.
    return false;
  }
}

/** Reads the view's entries after the kept ones into the tree; how many it read. */
function extendFromView(kept: CachedTree, reader: LogView | undefined): number {
  if (reader === undefined) return 0;
  const lastChain = kept.lastChain ?? new Uint8Array(32);
  let read = 0;
  for (const frame of reader.framesFrom({ position: kept.endPosition, lsn: kept.size + 1 })) {
    kept.tree.append(NODE_TREE_HASHING.leafHash(frame.payload));
    kept.positions.push(frame.position);
    kept.endPosition = frame.position + FRAME_HEADER_BYTES + frame.payload.length;
    lastChain.set(frame.chain);
    read += 1;
  }
  if (read > 0) kept.lastChain = lastChain;
  return read;
}

/**
 * A proof from payloads a shard read from its journal (`shipped`: the entries after `shipped.after`),
 * through the cache; `{ wantedAfter }` when this thread keeps fewer entries than `shipped.after`, or
 * its kept tree no longer matches and the shard must send the log from the start.
 */
export function cachedProofFromPayloads(cache: ProofTreeCache, logId: string, shipped: ShippedEntries, request: LogProofRequest, anchor?: TreeAnchor): LogProof | ProofEntriesWanted {
  const key = keyOf(logId, "journal");
  cache.received(shipped.payloads.length + (shipped.entry === undefined ? 0 : 1));
  let kept = cache.take(key);
  if (kept !== undefined && kept.size < shipped.after) return { wantedAfter: kept.size };
  let hashed = 0;
  let warm = false;
  if (kept !== undefined) {
    if (overlapMatches(kept, shipped)) {
      hashed += appendShipped(kept, shipped);
      warm = agreesWith(kept, anchor);
    }
    if (!warm) {
      cache.invalidate(key);
      kept = undefined;
    }
  }
  if (kept === undefined) {
    // Only the whole log from its first entry can start a tree.
    if (shipped.after > 0) return { wantedAfter: 0 };
    kept = cache.fresh(key);
    hashed += appendShipped(kept, shipped);
  }
  cache.answered(warm, hashed);
  cache.keep(key, kept);
  return proofFrom(kept, logId, request, (leafIndex) => {
    const entry = leafIndex >= shipped.after ? shipped.payloads[leafIndex - shipped.after] : shipped.entry;
    if (entry === undefined) throw new Error(`the proof of leaf ${leafIndex} was sent without its entry`);
    return Uint8Array.from(entry);
  });
}

/** Shipped entries the tree already holds must hash as kept. */
function overlapMatches(kept: CachedTree, shipped: ShippedEntries): boolean {
  const overlap = Math.min(kept.size - shipped.after, shipped.payloads.length);
  for (let i = 0; i < overlap; i += 1) {
    if (!sameHash(NODE_TREE_HASHING.leafHash(shipped.payloads[i] as Uint8Array), kept.tree.leafHashAt(shipped.after + i))) return false;
  }
  return true;
}

/** Appends the shipped entries the tree does not hold yet (those after its size); how many. */
function appendShipped(kept: CachedTree, shipped: ShippedEntries): number {
  const from = kept.size - shipped.after;
  for (let i = from; i < shipped.payloads.length; i += 1) kept.tree.append(NODE_TREE_HASHING.leafHash(shipped.payloads[i] as Uint8Array));
  return Math.max(0, shipped.payloads.length - from);
}
