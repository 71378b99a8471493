/**
 * Frame payloads an audit keeps from its first pass over a shard's log, so that building each
 * market's record does not read every frame again with its own pread (on this machine a pread of
 * one frame cost ~6 µs, a sixth of a `verify`). Bounded: past `budgetBytes` nothing more is kept,
 * and the rest of a market's commands are read from the log as before.
 *
 * Payloads are copied (the log reader's views are only valid until it advances) into 16 MiB slabs,
 * each entry a 4-byte length and the bytes; an entry is named by its global offset.
 */
const SLAB_BYTES = 16 * 1024 * 1024;
const LENGTH_BYTES = 4;

/** What one shard's audit keeps by default: 256 MiB, about a million claims' payloads. */
export const DEFAULT_KEPT_PAYLOAD_BYTES = 256 * 1024 * 1024;

export class KeptPayloads {
  private readonly slabs: Buffer[] = [];
  private usedInLastSlab = SLAB_BYTES;
  private keptBytes = 0;
  private full = false;

  constructor(private readonly budgetBytes: number = DEFAULT_KEPT_PAYLOAD_BYTES) {
    if (!(Number.isSafeInteger(budgetBytes) && budgetBytes >= 0)) throw new RangeError(`bad payload budget ${budgetBytes}`);
  }

  /**
   * Keeps a copy of `payload`; its offset, or -1 once the budget is spent (then every later call
   * returns -1 too, so what is kept of each market is a prefix of its commands).
   */
  keep(payload: Uint8Array): number {
    const entryBytes = LENGTH_BYTES + payload.length;
    if (this.full || entryBytes > SLAB_BYTES || this.keptBytes + entryBytes > this.budgetBytes) {
      this.full = true;
      return -1;
    }
    if (this.usedInLastSlab + entryBytes > SLAB_BYTES) {
      this.slabs.push(Buffer.allocUnsafe(SLAB_BYTES));
      this.usedInLastSlab = 0;
    }
    const slab = this.slabs[this.slabs.length - 1] as Buffer;
    const at = this.usedInLastSlab;
    slab.writeUInt32LE(payload.length, at);
    slab.set(payload, at + LENGTH_BYTES);
    this.usedInLastSlab += entryBytes;
    this.keptBytes += entryBytes;
    return (this.slabs.length - 1) * SLAB_BYTES + at;
  }

  /** The payload kept at `offset` (a view: valid while this object lives). */
  payloadAt(offset: number): Buffer {
    const slab = this.slabs[Math.floor(offset / SLAB_BYTES)];
    if (slab === undefined || offset < 0) throw new RangeError(`no kept payload at ${offset}`);
    const at = offset % SLAB_BYTES;
    const length = slab.readUInt32LE(at);
    return slab.subarray(at + LENGTH_BYTES, at + LENGTH_BYTES + length);
  }
}
