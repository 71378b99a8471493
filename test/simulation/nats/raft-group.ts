/**
 * One replicated thing on the NATS servers (a stream, a KV bucket's stream, an object store's):
 * R3, one leader, which answers every request. A leader election (the leader's server died) is an
 * outage of the group alone: nothing is answered until it ends, and writes proposed but not yet
 * replicated to a quorum may or may not survive it (raft: whatever reached the new leader does).
 */
export class RaftGroup {
  /** Until then the group has no leader. */
  electingUntilMs = 0;
  /** Elections so far (a proposal remembers the term it was made in). */
  term = 0;

  constructor(readonly name: string) {}

  available(nowMs: number): boolean {
    return nowMs >= this.electingUntilMs;
  }
}
