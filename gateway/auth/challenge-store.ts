/**
 * Where outstanding authentication challenges are kept between `POST /v1/auth/challenges` and
 * `POST /v1/auth/tokens` (spec §5.1: single use, valid until `expiresAt`, the nonce kept only as
 * its SHA-256). The sign-in logic (ed25519-proof.ts) is the same whatever the store; a store only
 * keeps records and hands each one out for consumption exactly once:
 *
 * - one node: memory-challenge-store.ts (a restart forgets them; clients ask again);
 * - cluster mode: gateway/cluster-challenge-store.ts, a NATS KV bucket every node reads and writes,
 *   so a challenge issued by one node can be redeemed at any other, once.
 *
 * A record is found first and consumed after the checks, by a compare-and-swap on the version found:
 * of any number of attempts on one challenge, on any nodes, exactly one consumes it. Expiry is in the
 * record and judged by the caller's injected clock; a store may forget expired records whenever it
 * likes. "unavailable" is an infrastructure failure (the cluster's KV out of reach): the caller
 * answers 503 and the client may retry, never a 401.
 */

export interface PendingChallenge {
  readonly actorId: string;
  readonly keyId: string;
  readonly nonceHash: Buffer;
  readonly expiresAtMs: number;
  /** The exact text that went into the signing payload. */
  readonly expiresAt: string;
  readonly audience: string;
}

/** A challenge as found, with the version a later `consume` must still see. */
export interface FoundChallenge {
  readonly challenge: PendingChallenge;
  readonly version: number;
}

export type ChallengeStoreUnavailable = "unavailable";

export interface ChallengeStore {
  /** Keeps `challenge` under the new, random `id` until it is consumed or expires. */
  add(id: string, challenge: PendingChallenge, nowMs: number): Promise<"added" | ChallengeStoreUnavailable>;
  /** The outstanding (not consumed) challenge under `id`, expired or not; undefined if none. */
  find(id: string): Promise<FoundChallenge | undefined | ChallengeStoreUnavailable>;
  /**
   * Consumes the challenge `find` gave, unless it was consumed since: "consumed" for exactly one
   * caller, "gone" for every other; "unavailable" when the outcome is unknown.
   */
  consume(id: string, found: FoundChallenge): Promise<"consumed" | "gone" | ChallengeStoreUnavailable>;
  /** Outstanding challenges, where the store can count them cheaply (metrics); undefined otherwise. */
  readonly size: number | undefined;
}
