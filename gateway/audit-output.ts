/** How `replay` and `verify` print what they found, whatever they read (a data directory or a stream). */
import type { ReplayResult, VerifyResult } from "../engine/audit/audit-replay.js";

/** The one-line summary written to stderr. */
export function auditSummary(verb: string, result: ReplayResult): string {
  const seconds = (result.elapsedMs / 1000).toFixed(2);
  return `${verb} ${result.commands.toLocaleString("en-US")} commands from ${result.shards} shard(s) in ${seconds} s ` +
    `(${result.commandsPerSecond.toLocaleString("en-US")} commands/s); ${result.markets.length} market(s)`;
}

/** One line per market on stdout: record hash, market id, commands, shard (a stream's partition). */
export function printMarkets(result: ReplayResult): void {
  for (const m of result.markets) {
    process.stdout.write(`${m.recordHash}  ${m.marketId}  (${m.commands} commands, shard ${m.shard}${m.stateReconstructed ? "" : ", NOT RECONSTRUCTED"})\n`);
  }
}

/**
 * What `verify` prints: the result as JSON (`json`), then a failure (exit status 1) or the markets
 * and the summary, followed by `facts` (what a stream showed), if any.
 */
export function printVerify(result: VerifyResult, json: boolean, facts?: string): void {
  if (json) process.stdout.write(`${JSON.stringify(result)}\n`);
  if (!result.ok) {
    process.stderr.write(`verify: FAILED: ${result.problem ?? "unknown problem"}\n`);
    process.exitCode = 1;
    return;
  }
  if (!json) printMarkets(result.replay);
  const heads = result.signedHeads;
  const signed = `${heads.heads} signed head(s) matched${heads.uncoveredEntries > 0 ? ` (${heads.uncoveredEntries} entries after the last one, as a crash leaves them)` : ""}`;
  process.stderr.write(`${auditSummary("verified", result.replay)}; ${result.snapshotsCompared} snapshot(s) matched; ${signed}\n${facts === undefined ? "" : `${facts}\n`}`);
}
