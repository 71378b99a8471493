/**
 * What an audit checks of a log's signed heads (issue 29; docs/proofs.md) as it reads the log's entries
 * in order, with the one check recovery makes too (recorded-head.ts): every head entry covers
 * exactly the entries before it, and its root hash is theirs; with the service's public keys, its
 * signature verifies under the key it names, and the entries after the last head are no more than a
 * crash leaves (unsigned-tail.ts). A log rewritten by someone without the signing key (every
 * chain value, CRC and header recomputed) fails at the first head after the first changed entry, or —
 * if they dropped the heads too — for holding none, or more unsigned entries than a crash leaves.
 * Tails an operator accepted at start (AUDIT_ACCEPT_UNSIGNED_TAIL) are reported, never hidden.
 */
import { CompactRange } from "../merkle/compact-range.js";
import { NODE_TREE_HASHING } from "../node-tree-hashing.js";
import type { LogEntry } from "../../log/logged-head.js";
import { recordedHeadProblem } from "./recorded-head.js";
import { DEFAULT_HEAD_INTERVAL, UnsignedTail, type HeadInterval } from "./unsigned-tail.js";
import { HeadKeys, type PublicKeyEntry } from "../signing/head-keys.js";
import type { SignedHead } from "@market-service/client/audit";

/** An unsigned tail an operator accepted at start, as the head recorded for it says. */
export interface AcceptedTail {
  readonly logId: string;
  /** Its first and last entry. */
  readonly from: number;
  readonly to: number;
  /** When the accepting head was signed. */
  readonly timeMs: number;
}

export interface HeadAuditReport {
  /** Head entries met and checked. */
  readonly heads: number;
  /** Entries after the last head (not yet covered by a recorded head: a crash can leave some). */
  readonly uncoveredEntries: number;
  /** Whether the log has entries and no head at all. */
  readonly headless: boolean;
  readonly acceptedTails: AcceptedTail[];
  /** The first problem, naming the log and the entry. */
  readonly problem?: string;
}

/** With keys: signatures are checked, and the unsigned tail against the interval the service records heads at. */
export interface HeadChecks {
  readonly keys: HeadKeys;
  readonly interval: HeadInterval;
}

export class HeadAudit {
  private readonly tree = new CompactRange(NODE_TREE_HASHING);
  private readonly tail = new UnsignedTail();
  private heads = 0;
  private readonly acceptedTails: AcceptedTail[] = [];
  private problem: string | undefined;

  /** `logId`: what every head of this log must name. */
  constructor(
    private readonly logId: string,
    private readonly checks: HeadChecks | undefined,
  ) {}

  /** The entry at `sequence` (1, 2, … in order), as decoded. */
  entry(sequence: number, payload: Uint8Array, entry: LogEntry): void {
    if (this.problem === undefined) {
      if (entry.kind === "head") this.check(sequence, entry.head, entry.acceptedFrom);
      else this.tail.entry(entry.logged.c.occurredAtMs);
    }
    this.tree.append(NODE_TREE_HASHING.leafHash(payload));
  }

  report(): HeadAuditReport {
    const headless = this.heads === 0 && this.tree.size > 0;
    let problem = this.problem;
    if (problem === undefined && this.checks !== undefined) {
      problem = headless ? `log ${this.logId}: ${this.tree.size} entries and no signed head: nothing in it is signed by the service` : this.tail.problem(this.logId, this.checks.interval);
    }
    return { heads: this.heads, uncoveredEntries: this.tail.entries, headless, acceptedTails: this.acceptedTails, ...(problem === undefined ? {} : { problem }) };
  }

  private check(sequence: number, head: SignedHead, acceptedFrom: number | undefined): void {
    this.problem = recordedHeadProblem(this.logId, sequence, head, this.tree, this.checks?.keys);
    if (this.problem !== undefined) return;
    if (acceptedFrom !== undefined) this.acceptedTails.push({ logId: this.logId, from: acceptedFrom, to: sequence - 1, timeMs: head.timeMs });
    this.heads += 1;
    this.tail.head(sequence);
  }
}

/** The checks `verify` makes with public keys (none without), at the interval given or the service's default. */
export function headChecksOf(publicKeys: readonly PublicKeyEntry[] | undefined, interval: HeadInterval | undefined): HeadChecks | undefined {
  return publicKeys === undefined ? undefined : { keys: new HeadKeys(publicKeys), interval: interval ?? DEFAULT_HEAD_INTERVAL };
}

/** What `verify` says of the signed heads of every log it read. */
export interface SignedHeadsSummary {
  readonly heads: number;
  /** Entries after each log's last head, summed. */
  readonly uncoveredEntries: number;
  /** Whether signatures were checked (`--public-key`); without, only roots and sizes. */
  readonly signaturesChecked: boolean;
  /** Logs with entries and no head at all. */
  readonly headlessLogs: number;
  readonly acceptedTails: AcceptedTail[];
}

export function summarizeHeads(reports: ReadonlyArray<Pick<HeadAuditReport, "heads" | "uncoveredEntries" | "headless" | "acceptedTails">>, signaturesChecked: boolean): SignedHeadsSummary {
  return {
    heads: reports.reduce((sum, report) => sum + report.heads, 0),
    uncoveredEntries: reports.reduce((sum, report) => sum + report.uncoveredEntries, 0),
    signaturesChecked,
    headlessLogs: reports.filter((report) => report.headless).length,
    acceptedTails: reports.flatMap((report) => report.acceptedTails),
  };
}
