/**
 * Where the worker pool's threads post their proof tree caches' counters (ProofCacheStats) for the
 * service to read without asking a thread: a SharedArrayBuffer the pool makes and hands every thread
 * (piscina's workerData). A question to a thread would wait behind the proof it is building (seconds
 * for a cold log of millions of entries), and /metrics must not.
 *
 * Layout: one Int32 counter of claimed slots (8 bytes, so the slots stay aligned), then one slot of
 * float64 values per thread, in STAT_NAMES order. A thread claims its slot at its first proof and
 * writes the whole slot after each; a reader sums the claimed slots. A value is written as one aligned
 * 8-byte store, so a reader sees each number old or new, and at worst one proof's counts late.
 * A thread that died keeps its slot's last values (a crash is a bug, and rare); a pool that started
 * more threads than it has slots stops posting for the later ones.
 */
import { emptyProofCacheStats, type ProofCacheStats } from "../audit/proof-tree-cache.js";

const STAT_NAMES = Object.keys(emptyProofCacheStats()) as (keyof ProofCacheStats)[];
const HEADER_BYTES = 8;
const SLOTS = 1024;

/** A board for a pool: its buffer goes to every thread. */
export function newProofCacheBoard(): SharedArrayBuffer {
  return new SharedArrayBuffer(HEADER_BYTES + SLOTS * STAT_NAMES.length * 8);
}

/** The sum of every thread's posted counters. */
export function readProofCacheBoard(board: SharedArrayBuffer): ProofCacheStats {
  const stats = emptyProofCacheStats();
  const claimed = Math.min(Atomics.load(new Int32Array(board, 0, 1), 0), SLOTS);
  const values = new Float64Array(board, HEADER_BYTES);
  for (let slot = 0; slot < claimed; slot += 1) {
    STAT_NAMES.forEach((name, i) => {
      stats[name] += values[slot * STAT_NAMES.length + i] as number;
    });
  }
  return stats;
}

/** A thread's pen on the board: `post` writes its cache's counters to the slot it claimed. */
export class ProofCacheBoardSlot {
  private readonly slot: number;

  constructor(private readonly board: SharedArrayBuffer) {
    this.slot = Atomics.add(new Int32Array(board, 0, 1), 0, 1);
  }

  post(stats: ProofCacheStats): void {
    if (this.slot >= SLOTS) return;
    const values = new Float64Array(this.board, HEADER_BYTES + this.slot * STAT_NAMES.length * 8, STAT_NAMES.length);
    STAT_NAMES.forEach((name, i) => {
      values[i] = stats[name];
    });
  }
}
