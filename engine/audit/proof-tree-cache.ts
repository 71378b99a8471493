/**
 * The Merkle trees of logs, kept between proofs (issue 29, "Cost"; docs/proofs.md): a proof used to
 * read and hash every entry of its log up to the size asked; with a log's tree kept, a proof reads
 * only the entries appended since the tree was last extended, and a repeated proof reads nothing.
 * One cache per thread that builds proofs (each worker pool thread has its own, engine/pool-worker/pool-tasks.ts).
 *
 * Why a kept tree stays right: entries 1…n of a log never change once durable. The file journal only
 * appends, and its recovery cuts only a torn tail, frames of a batch whose fdatasync never returned
 * (storage/torn-tail.ts, recovery.ts), which no read view ever included (a view ends at the durable
 * end); a stream journal only appends, fenced by the expected last sequence. What can still happen is
 * a log replaced under the same name: a data directory restored or rewritten between two runs of a
 * service, while a thread and its cache live on (in-process users, tests). So a kept tree is checked
 * before every use (engine/audit/cached-log-proofs.ts): the last kept entry is read again and must
 * hash as kept (its frame's chain value too, which commits to every entry before it), and the root
 * at the size the log's writer vouches for (its own tree, which it rebuilt from the log as it is)
 * must come out of the kept tree; a tree that fails either is dropped and built again.
 *
 * Memory is bounded by bytes (the hashes of every level, about 64 bytes a leaf, and the frame
 * positions of a file log, 8 bytes a leaf); beyond the bound whole logs are evicted, the least
 * recently used first, and a single log larger than the bound is not kept at all.
 */
import { MerkleLog } from "./merkle/merkle-log.js";
import { NODE_TREE_HASHING } from "./node-tree-hashing.js";

/** The default bound of one thread's cache (AUDIT_PROOF_CACHE_BYTES). */
export const DEFAULT_PROOF_CACHE_BYTES = 256 * 1024 * 1024;

/** Counts since the cache was made (tests and metrics observe reuse through them, never through timing). */
export interface ProofCacheStats {
  /** Proofs answered through the cache. */
  proofs: number;
  /** Of those, proofs that found their log's tree kept and still matching (whether or not it had to grow). */
  warm: number;
  /** Trees started from the log's first entry (a cold proof, or one after a drop or an eviction). */
  builds: number;
  /** Entries read and hashed into kept trees, in all. */
  entriesHashed: number;
  /** Entries a shard sent with proofs (a journal without a view), in all: the shard read each of them for it. */
  entriesSent: number;
  /** Kept trees dropped because the log no longer matched them. */
  invalidated: number;
  /** Kept trees evicted by the bound. */
  evicted: number;
  /** Bytes held now, and logs held now. */
  bytes: number;
  logs: number;
}

/** One log's kept tree. */
export class CachedTree {
  readonly tree = new MerkleLog(NODE_TREE_HASHING);
  /** File logs: the log position of each entry's frame, leaf order (to read a proven entry, and the last to check). */
  readonly positions: number[] = [];
  /** File logs: the position just past the last kept entry's frame (where the next read starts). */
  endPosition = 0;
  /** File logs: the chain value of the last kept entry's frame. */
  lastChain: Uint8Array | undefined;

  get size(): number {
    return this.tree.size;
  }

  get bytes(): number {
    return this.tree.allocatedBytes + this.positions.length * 8;
  }
}

/** The counters of a cache that has answered nothing (a pool with no thread started yet). */
export function emptyProofCacheStats(): ProofCacheStats {
  return { proofs: 0, warm: 0, builds: 0, entriesHashed: 0, entriesSent: 0, invalidated: 0, evicted: 0, bytes: 0, logs: 0 };
}

export class ProofTreeCache {
  /** In use order: a Map iterates in insertion order, and a used tree is inserted again. */
  private readonly trees = new Map<string, CachedTree>();
  private readonly counts = { proofs: 0, warm: 0, builds: 0, entriesHashed: 0, entriesSent: 0, invalidated: 0, evicted: 0 };

  constructor(readonly maxBytes: number = DEFAULT_PROOF_CACHE_BYTES) {
    if (!(Number.isSafeInteger(maxBytes) && maxBytes >= 0)) throw new RangeError(`proof cache bytes must be a non-negative integer, not ${maxBytes}`);
  }

  /** The kept tree of `key`, now the most recently used; undefined if none is kept. */
  take(key: string): CachedTree | undefined {
    const tree = this.trees.get(key);
    if (tree === undefined) return undefined;
    this.trees.delete(key);
    this.trees.set(key, tree);
    return tree;
  }

  /** A fresh tree for `key` (counted as a build); kept only once `keep` is called. */
  fresh(key: string): CachedTree {
    this.trees.delete(key);
    this.counts.builds += 1;
    return new CachedTree();
  }

  /** Counts entries a shard sent with a proof. */
  received(entries: number): void {
    this.counts.entriesSent += entries;
  }

  /** `key`'s kept tree no longer matches its log: forget it. */
  invalidate(key: string): void {
    if (this.trees.delete(key)) this.counts.invalidated += 1;
  }

  /** Counts a proof, and whether it found its tree kept. */
  answered(warm: boolean, entriesHashed: number): void {
    this.counts.proofs += 1;
    if (warm) this.counts.warm += 1;
    this.counts.entriesHashed += entriesHashed;
  }

  /** Keeps `tree` as `key`'s (most recently used), then evicts the least recently used beyond the bound. */
  keep(key: string, tree: CachedTree): void {
    this.trees.delete(key);
    this.trees.set(key, tree);
    let bytes = this.bytes;
    for (const [oldest, kept] of this.trees) {
      if (bytes <= this.maxBytes) break;
      this.trees.delete(oldest);
      this.counts.evicted += 1;
      bytes -= kept.bytes;
    }
  }

  get bytes(): number {
    let bytes = 0;
    for (const tree of this.trees.values()) bytes += tree.bytes;
    return bytes;
  }

  get stats(): ProofCacheStats {
    return { ...this.counts, bytes: this.bytes, logs: this.trees.size };
  }
}

let threadCache: ProofTreeCache | undefined;

/**
 * The cache of this thread (a worker pool thread's, or the process's main thread for in-process
 * proofs), made at its first use with `maxBytes` (the pool passes AUDIT_PROOF_CACHE_BYTES; a later
 * call's bound is ignored).
 */
export function threadProofCache(maxBytes: number = DEFAULT_PROOF_CACHE_BYTES): ProofTreeCache {
  threadCache ??= new ProofTreeCache(maxBytes);
  return threadCache;
}
