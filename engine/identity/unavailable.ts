/**
 * The identity store's answer when it cannot log a command for now (the cluster mode's identity
 * stream unreachable, or always appended to first by other nodes): nothing was acknowledged, the
 * client may send the same command again. Not a spec code (§7 has no temporary failure): the
 * service's one extension, `service_unavailable`, which the gateway answers with 503 and
 * Retry-After (docs/errors.md, decisions.md T15).
 */
export interface TemporarilyUnavailable {
  readonly ok: false;
  readonly code: "service_unavailable";
  readonly message: string;
}

export function temporarilyUnavailable(message: string): TemporarilyUnavailable {
  return { ok: false, code: "service_unavailable", message };
}

/** What recording an issued token came to. */
export type TokenRecording =
  /** Durable: the token may be handed out. */
  | "recorded"
  /** The actor or key is no longer active (or the record is invalid): never hand out the token. */
  | "refused"
  /** Not logged (the store failed or cannot log for now): never hand out the token. */
  | "unavailable";
