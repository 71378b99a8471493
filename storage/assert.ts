import { StorageInvariantError } from "./errors.js";

/** Throws `StorageInvariantError` when an impossible state is reached (a bug in storage/). */
export function assertStorage(condition: unknown, message: string): asserts condition {
  if (!condition) throw new StorageInvariantError(message);
}

/** Asserts a non-negative safe integer; every byte count, offset and lsn must be one. */
export function assertSafeUint(value: number, what: string): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new StorageInvariantError(`${what} must be a non-negative safe integer, got ${value}`);
  }
}
