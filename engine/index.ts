/**
 * The market engine (docs/architecture.md, "Layout"). This entry is its pure core: the rules
 * (rules/), how market state is kept (store/), the record and canonical hashing, with no clock, no
 * randomness and no I/O: same commands in, byte-identical records and hashes out. The runtime that
 * runs the core sits beside it and is imported from its own rooms: shards (runtime/), journals
 * (journal/), the cluster (cluster/, messaging/), the worker pool (pool/), audits and the Merkle log
 * (audit/), idempotency and identities, and the single binary's loaders (binary/).
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
