/** How `replay` and `verify` print what they found, whatever they read (a data directory or a stream). */
import type { ReplayResult, VerifyResult } from "../../engine/replay/audit-replay.js";
import type { SignedHeadsSummary } from "../../engine/audit/heads/head-audit.js";
import { ACCEPT_UNSIGNED_TAIL_SETTING } from "../../engine/audit/heads/unsigned-tail.js";

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
  process.stderr.write(`${auditSummary("verified", result.replay)}; ${result.snapshotsCompared} snapshot(s) matched; ${headsChecked(result.signedHeads)}\n${facts === undefined ? "" : `${facts}\n`}`);
  for (const tail of result.signedHeads.acceptedTails) {
    process.stderr.write(
      `verify: NOTE: log ${tail.logId}: entries ${tail.from}…${tail.to} were accepted at start without a verified head (${ACCEPT_UNSIGNED_TAIL_SETTING}), ` +
        `recorded by the head signed at ${new Date(tail.timeMs).toISOString()}: the service's signatures vouch for them only from then on\n`,
    );
  }
}

/** What was checked of the signed heads, in words: never more than was checked. */
function headsChecked(heads: SignedHeadsSummary): string {
  const parts = [
    heads.signaturesChecked
      ? `${heads.heads} signed head(s) verified: roots and signatures checked`
      : `${heads.heads} head(s) matched the entries before them: roots checked; signatures not checked: pass --public-key`,
  ];
  if (heads.uncoveredEntries > 0) {
    parts.push(
      heads.signaturesChecked
        ? `${heads.uncoveredEntries} entries after the last head of their log, no more than a crash leaves`
        : `${heads.uncoveredEntries} entries after the last head of their log, not signed by any recorded head`,
    );
  }
  if (heads.headlessLogs > 0) parts.push(`${heads.headlessLogs} log(s) with entries and no head at all: nothing in them is signed (written with AUDIT_HEADS=off, or the heads were removed)`);
  return parts.join("; ");
}
