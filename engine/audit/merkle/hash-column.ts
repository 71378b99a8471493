/**
 * An append-only column of 32-byte hashes, stored back to back in chunks of Uint8Array.
 *
 * Chunks rather than one array that doubles: a column of millions of hashes grows without copying
 * what it holds and without a moment where the old and the new copy are both alive. A column's
 * first chunk starts small and doubles up to the chunk size, so the many short columns of a small
 * tree (and of the many small trees of a service with many logs) stay small.
 */
import { HASH_BYTES } from "@market-service/client/audit";

/** Hashes per full chunk (a power of two, so a chunk is a whole number of MiB). */
const CHUNK_HASHES = 32_768;
const FIRST_CHUNK_HASHES = 16;

export class HashColumn {
  private readonly chunks: Uint8Array[] = [];
  private count = 0;

  /** How many hashes the column holds. */
  get length(): number {
    return this.count;
  }

  /** Bytes allocated for the column (held hashes plus room not used yet). */
  get allocatedBytes(): number {
    let bytes = 0;
    for (const chunk of this.chunks) bytes += chunk.byteLength;
    return bytes;
  }

  /** Copies a 32-byte hash to the end of the column. The caller checks the length. */
  append(hash: Uint8Array): void {
    const chunkIndex = Math.floor(this.count / CHUNK_HASHES);
    const slot = this.count - chunkIndex * CHUNK_HASHES;
    let chunk = this.chunks[chunkIndex];
    if (chunk === undefined) {
      chunk = new Uint8Array((chunkIndex === 0 ? FIRST_CHUNK_HASHES : CHUNK_HASHES) * HASH_BYTES);
      this.chunks.push(chunk);
    } else if ((slot + 1) * HASH_BYTES > chunk.length) {
      // Only the first chunk is ever short: double it, up to a full chunk.
      const grown = new Uint8Array(Math.min(chunk.length * 2, CHUNK_HASHES * HASH_BYTES));
      grown.set(chunk);
      chunk = grown;
      this.chunks[chunkIndex] = chunk;
    }
    chunk.set(hash, slot * HASH_BYTES);
    this.count += 1;
  }

  /**
   * The hash at `index` (0 ≤ index < length, checked by the caller) as a view into the column: no
   * copy, so it must not be handed out or written to.
   */
  view(index: number): Uint8Array {
    const chunkIndex = Math.floor(index / CHUNK_HASHES);
    const offset = (index - chunkIndex * CHUNK_HASHES) * HASH_BYTES;
    return (this.chunks[chunkIndex] as Uint8Array).subarray(offset, offset + HASH_BYTES);
  }
}
