/**
 * The market engine (docs/architecture.md, "Layout"). Its pure core, with no clock, no randomness
 * and no I/O (same commands in, byte-identical records and hashes out): the rules (rules/), how
 * market state is kept (store/), the record (record.ts) and canonical hashing (canonical-hash.ts),
 * which this entry exports; and the one fold of a log (log-fold.ts) and equality of plain data
 * (plain-equal.ts), which are imported from their own modules, not from this entry. Beside it at this level, not exported here: the seams of time the runtime
 * is given (clock.ts, timers.ts). The runtime that runs the core is imported from its own rooms,
 * each importing only rooms below it (test/architecture): the log's frames (log/); the Merkle log,
 * its signed heads and proofs (audit/: what a client's audit/ checks); the messages a shard answers
 * (shard-protocol/) and a live event's public view (events/); the worker pool (pool/) and what its
 * threads run (pool-worker/); journals (journal/) over storage/ or NATS (messaging/); idempotency
 * and identities (idempotency/, identity/); shards and the market runtime (runtime/); replay and
 * verify of a data directory or a stream (replay/); the cluster (cluster/); and the single binary's
 * loaders (binary/).
 */
export * from "./rules/types/index.js";
export { buildCommand, buildIdentity, buildRejection, COMMAND_LAYOUTS, type CommandFields, type CommandOf } from "./rules/types/command-layout.js";
export { decide } from "./rules/decide.js";
export { evolve, checkInvariants } from "./rules/evolve.js";
export { accept, reject, publicEvent, type Decision, type DomainEvent, type SealedBidAmount } from "./rules/decision/decision.js";
export { applyCommand, handleCommand, marketIdOfCommand, recordedRequestOf, type AppliedCommand, type CommandOutcome, type CommandReply } from "./rules/handle-command.js";
export { buildMarketRecord, replayMarket, recomputeRecordHash, type ReplayedMarket } from "./record.js";
export { canonicalHash, canonicalJson, RECORD_HASH_ALGORITHM } from "./canonical-hash.js";
export {
  deadlinesFromEvents,
  pendingDeadlines,
  isDeadlinePending,
  systemCommandFor,
  type Deadline,
} from "./rules/deadlines.js";
export { newAggregate, findCommitment, commitmentAt, commitmentsOf, type MarketAggregate, type SealedBid } from "./rules/state/state.js";
export { CommitmentTable, COMMITMENT_STATES, type CommitmentTableImage } from "./store/commitment-table.js";
export { bidIdOf, commitmentIdOf, eventIdOf, marketRef, parseCommitmentId, parseGeneratedId } from "@market-service/client/wire";
export { isoFromMs, parseDateTimeMs } from "./rules/common/time.js";
export { InvariantViolation } from "./rules/common/assert.js";
