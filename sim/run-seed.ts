/**
 * One seed from start to verdict: the world runs with its faults and workload, every fault heals,
 * every command must then get its answer, every deadline must fire, and every node's reads must
 * equal the streams'. The first violation ends the seed; the result carries the trace's hash (the
 * same seed always gives the same one) and the trace's last lines.
 */
import { pendingDeadlines } from "../engine/rules/deadlines.js";
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

/** How long after its instant a deadline may still be unfired (clocks behind, a partition recovering). */
const DEADLINE_SLACK_MS = 3_000;

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
    await scheduler.run(settleBy, () => failed() || clients.pending === 0);
    if (!failed() && clients.pending > 0) {
      violations.report(`${clients.pending} commands still had no answer ${scenario.settleMs} ms after every fault healed: ${clients.pendingLabels().slice(0, 5).join("; ")}`);
    }
  }
  if (!failed()) {
    // Every deadline the streams hold comes due, and a little more.
    let lastDue = 0;
    for (const { agg } of auditor.markets.values()) for (const deadline of pendingDeadlines(agg)) lastDue = Math.max(lastDue, deadline.atMs - EPOCH_MS);
    await scheduler.run(Math.max(scheduler.nowMs, lastDue) + DEADLINE_SLACK_MS + 500, failed);
    if (!failed()) checkDeadlines(auditor, violations, EPOCH_MS + scheduler.nowMs, DEADLINE_SLACK_MS);
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
