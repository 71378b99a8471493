/**
 * Inclusion and consistency proofs of a log (issue 29; docs/proofs.md), as a pure function of the
 * log's entries: the leaf hashes of entries 1…n (entry s is leaf s − 1), the tree over them
 * (MerkleLog.from), then the proof. The service runs it on its worker pool over a view of a shard's
 * segment files (engine/pool-worker/replay-work.ts); the CLI over a stopped service's data directory.
 * The tree is rebuilt for every proof: a shard keeps only its tree's right edge (heads/log-heads.ts), and
 * reading and hashing the entries is work for a thread other than the shard's.
 */
import { LogView, type LogReadView } from "../../storage/index.js";
import { MerkleLog } from "./merkle/merkle-log.js";
import { encodeConsistencyProof, encodeInclusionProof, type ConsistencyProofJson, type InclusionProofJson } from "@market-service/client/audit";
import { NODE_TREE_HASHING } from "./node-tree-hashing.js";

/** What to prove, with sizes already checked to be integers (the log's own size is checked here). */
export type LogProofRequest =
  | { readonly type: "inclusion"; readonly leafIndex: number; readonly treeSize: number }
  | { readonly type: "consistency"; readonly oldSize: number; readonly newSize: number };

/** An inclusion proof with the proven entry's payload (its leaf data), or a consistency proof. */
export type LogProof = { type: "inclusion"; proof: InclusionProofJson; entry: Uint8Array } | { type: "consistency"; proof: ConsistencyProofJson };

/** A request the log cannot answer; `field` names the parameter at fault (as the endpoint calls it). */
export class LogProofRangeError extends Error {
  override readonly name = "LogProofRangeError";
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/** How many entries the proof needs: the tree size it is for. */
export function entriesNeeded(request: LogProofRequest): number {
  return request.type === "inclusion" ? request.treeSize : request.newSize;
}

/**
 * Why the request does not fit a log of `logSize` entries (named by `logId`), or undefined when it
 * does. The field names are the endpoint's query parameters.
 */
export function requestProblem(request: LogProofRequest, logId: string, logSize: number): LogProofRangeError | undefined {
  const beyond = (field: string, value: number): LogProofRangeError =>
    new LogProofRangeError(field, `${field} ${value} is beyond the log ${logId}, which has ${logSize} entries`);
  if (request.type === "inclusion") {
    if (request.treeSize < 1) return new LogProofRangeError("treeSize", "treeSize must be at least 1: the empty tree holds no leaf");
    if (request.treeSize > logSize) return beyond("treeSize", request.treeSize);
    if (request.leafIndex >= request.treeSize) return new LogProofRangeError("leafIndex", `leafIndex ${request.leafIndex} must be below treeSize ${request.treeSize}`);
    return undefined;
  }
  if (request.oldSize < 1) return new LogProofRangeError("from", "from must be at least 1: every tree extends the empty tree, so a proof from it proves nothing");
  if (request.newSize > logSize) return beyond("to", request.newSize);
  if (request.oldSize > request.newSize) return new LogProofRangeError("from", `from ${request.oldSize} must not exceed to ${request.newSize}`);
  return undefined;
}

/**
 * The proof from the log's entries in order (payloads of entries 1, 2, …; only the first
 * `entriesNeeded(request)` are read). A LogProofRangeError when the log is shorter than the sizes.
 */
export function logProof(payloads: Iterable<Uint8Array>, logId: string, request: LogProofRequest): LogProof {
  const needed = entriesNeeded(request);
  const leafIndex = request.type === "inclusion" ? request.leafIndex : -1;
  let entry: Uint8Array | undefined;
  let count = 0;
  const leafHashes = function* (): Generator<Uint8Array> {
    for (const payload of payloads) {
      if (count >= needed) return;
      if (count === leafIndex) entry = Uint8Array.from(payload);
      count += 1;
      yield NODE_TREE_HASHING.leafHash(payload);
    }
  };
  const tree = MerkleLog.from(leafHashes(), NODE_TREE_HASHING);
  const problem = requestProblem(request, logId, tree.size);
  if (problem !== undefined) throw problem;
  if (request.type === "consistency") {
    return { type: "consistency", proof: encodeConsistencyProof({ oldSize: request.oldSize, newSize: request.newSize, path: tree.consistencyProof(request.oldSize, request.newSize) }) };
  }
  return {
    type: "inclusion",
    proof: encodeInclusionProof({ leafIndex: request.leafIndex, treeSize: request.treeSize, path: tree.inclusionProof(request.leafIndex, request.treeSize) }),
    entry: entry as Uint8Array,
  };
}

/** The payloads of a log view's entries in order (at most `limit`); each is a view valid until the next. */
export function* viewPayloads(view: LogReadView, limit: number): Generator<Uint8Array, void, undefined> {
  // An empty log has no segment to view: nothing to read.
  if (view.segments.length === 0) return;
  const reader = new LogView(view);
  try {
    for (const frame of reader.frames(limit)) yield frame.payload;
  } finally {
    reader.close();
  }
}

/** A proof over a log view (the worker pool's task, and the CLI's over an opened data directory). */
export function logProofFromView(view: LogReadView, logId: string, request: LogProofRequest): LogProof {
  return logProof(viewPayloads(view, entriesNeeded(request)), logId, request);
}
