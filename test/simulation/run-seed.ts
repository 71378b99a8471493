/**
 * One seed from start to verdict: the world runs with its faults and workload, every fault heals,
 * every command must then get its answer, every deadline must fire, and every node's reads must
 * equal the streams'. The first violation ends the seed; the result carries the trace's hash (the
 * same seed always gives the same one) and the trace's last lines.
 */
import { pendingDeadlines } from "../../engine/rules/deadlines.js";
import { checkAllocations, checkDeadlines, checkReads } from "./checks/end-checks.js";
import { EPOCH_MS, World, type WorldOptions } from "./world.js";

export interface SeedResult {
  readonly seed: number;
  /** The first violation found, if any. */
  readonly violation: string | undefined;
  readonly traceHash: string;
  readonly traceLines: number;
  /** The trace's last lines (all of it for a whole trace). */
  readonly traceTail: readonly string[];
  readonly simulatedMs: number;
  readonly events: number;
  readonly wallMs: number;
}

/**
 * How long after its instant (or after every fault healed) a deadline may still be unfired: a
 * clock behind, a partition recovering, a snapshot store electing its leader (a checkpoint then
 * holds its partition until the store answers or the journal's 15 s retry deadline passes).
 */
const DEADLINE_GRACE_MS = 25_000;

export async function runSeed(seed: number, options: WorldOptions = {}): Promise<SeedResult> {
  const started = performance.now();
  const world = new World(seed, options);
  const { scheduler, scenario, clients, violations, trace, auditor } = world;
  const failed = (): boolean => violations.found || scheduler.failure !== undefined;
  world.start();
  await scheduler.run(scenario.activeMs, failed);
  if (!failed()) {
    world.heal();
    const settleBy = scenario.activeMs + scenario.settleMs;
    // Quiet: every command answered, and the workload will send no more (a confirmation or a resend
    // still scheduled after a reply would otherwise come after the checks began).
    await scheduler.run(settleBy, () => failed() || (clients.pending === 0 && world.workload.idle));
    if (!failed() && clients.pending > 0) {
      violations.report(`${clients.pending} commands still had no answer ${scenario.settleMs} ms after every fault healed: ${clients.pendingLabels().slice(0, 5).join("; ")}`);
    }
  }
  if (!failed()) {
    // Every deadline the streams hold comes due and fires (a deadline firing may create another:
    // an auction's winner holds its place until an expiry); the wait ends when none is left, or
    // the grace past the last one known now has passed.
    const pending = (): number[] => [...auditor.markets.values()].flatMap(({ agg }) => pendingDeadlines(agg).map((deadline) => deadline.atMs - EPOCH_MS));
    const until = Math.max(scheduler.nowMs, ...pending()) + DEADLINE_GRACE_MS;
    let checkedAt = scheduler.nowMs;
    await scheduler.run(until, () => {
      if (failed()) return true;
      if (scheduler.nowMs - checkedAt < 250) return false;
      checkedAt = scheduler.nowMs;
      return pending().length === 0;
    });
    if (!failed()) checkDeadlines(auditor, violations, EPOCH_MS + scheduler.nowMs, DEADLINE_GRACE_MS - 1_000);
  }
  if (!failed()) {
    checkAllocations(auditor, violations);
    world.ledger.checkConflicts();
  }
  if (!failed()) {
    let done = false;
    const reads = checkReads(auditor, world.nodes, violations, (run) => void scheduler.after(300, clients.actor, run)).then(() => (done = true));
    await scheduler.run(scheduler.nowMs + 30_000, () => done || failed());
    if (!done && !failed()) violations.report("the reads of every market's record did not finish within 30 s");
    void reads;
  }
  if (scheduler.failure !== undefined) violations.report(scheduler.failure.message);
  trace.add("world", violations.first === undefined ? `passed: ${clients.sent} commands, ${world.ledger.checked} replies checked` : "FAILED");
  return {
    seed,
    violation: violations.first,
    traceHash: trace.digest(),
    traceLines: trace.lineCount,
    traceTail: trace.tail(),
    simulatedMs: scheduler.nowMs,
    events: scheduler.eventsRun,
    wallMs: performance.now() - started,
  };
}
