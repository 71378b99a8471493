/**
 * Invariant checks. A failed assertion is a bug in the engine, never a client error: it throws
 * loudly so a broken invariant fails a test instead of producing a wrong record.
 */
export class InvariantViolation extends Error {
  override name = "InvariantViolation";
}

export function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new InvariantViolation(message);
}

/** Exhaustiveness check for discriminated unions. */
export function assertNever(value: never, what: string): never {
  throw new InvariantViolation(`unhandled ${what}: ${JSON.stringify(value)}`);
}
