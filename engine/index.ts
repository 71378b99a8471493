/**
 * The deterministic market engine: a functional core with no clock, no randomness and no I/O.
 * Same commands in, byte-identical records and hashes out.
 */
export * from "./rules/types/index.js";
export { buildCommand, buildIdentity, buildRejection, COMMAND_LAYOUTS, type CommandFields, type CommandOf } from "./rules/types/command-layout.js";
export { decide } from "./rules/decide.js";
export { evolve, checkInvariants } from "./rules/evolve.js";
export { accept, reject, publicEvent, type Decision, type DomainEvent, type SealedBidAmount } from "./rules/decision.js";
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
export { newAggregate, findCommitment, commitmentAt, commitmentsOf, type MarketAggregate, type SealedBid } from "./rules/state.js";
export { CommitmentTable, COMMITMENT_STATES, type CommitmentTableImage } from "./store/commitment-table.js";
export { bidIdOf, commitmentIdOf, eventIdOf, marketRef, parseCommitmentId, parseGeneratedId } from "@market-service/client/wire";
export { isoFromMs, parseDateTimeMs } from "./rules/time.js";
export { InvariantViolation } from "./rules/assert.js";
