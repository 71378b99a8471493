/**
 * The entries of a log after its last verified head, and whether a crash can have left that many
 * (docs/storage.md, "Recovery and signed heads"; decisions.md I42).
 *
 * What a crash leaves: the writer (engine/audit/heads/log-heads.ts) ends a batch with a head once
 * `everyCommands` entries follow the last one (inside the batch if the batch is longer) or once the
 * oldest of them is `everyMs` old by the batch's server time, which every command of the batch
 * carries (`occurredAtMs`). So after any durable batch fewer than `everyCommands` entries follow the
 * last head, all stamped less than `everyMs` after the first of them; a crash can add the batch being
 * written, whose entries share one stamp, and with heads inside long batches no prefix of the log
 * ever has more than `everyCommands` entries after its last head. Hence the rule: at most
 * `everyCommands` entries, and every entry stamped before the last stamp is stamped less than
 * `everyMs` after the first. Anything more was not left by the service: its heads were removed or
 * the log rewritten. A log so short that all of it fits the rule cannot be told from a crash's tail;
 * its receipts still prove what was acknowledged (docs/proofs.md).
 */

/** When the writer records heads: the AUDIT_HEAD_EVERY_COMMANDS / AUDIT_HEAD_EVERY_SECONDS settings. */
export interface HeadInterval {
  readonly everyCommands: number;
  readonly everyMs: number;
}

/** The service's default interval (AUDIT_HEAD_EVERY_COMMANDS, AUDIT_HEAD_EVERY_SECONDS). */
export const DEFAULT_HEAD_INTERVAL: HeadInterval = { everyCommands: 10_000, everyMs: 1000 };

/** The setting that names an accepted tail (docs/storage.md): `<logId>:<first uncovered entry>`, comma-separated. */
export const ACCEPT_UNSIGNED_TAIL_SETTING = "AUDIT_ACCEPT_UNSIGNED_TAIL";

export class UnsignedTail {
  /** The last verified head's entry (0: none). */
  private headSequence = 0;
  private count = 0;
  private firstStampMs = 0;
  private lastStampMs = 0;
  /** The latest stamp of the entries before the last stamp (undefined: every entry has the last stamp). */
  private beforeLastStampMs: number | undefined;

  /** A verified head at `sequence`: nothing after it yet. */
  head(sequence: number): void {
    this.headSequence = sequence;
    this.count = 0;
    this.beforeLastStampMs = undefined;
  }

  /** One more entry after the last verified head; `stampMs` is its command's server time. */
  entry(stampMs: number): void {
    if (this.count === 0) {
      this.firstStampMs = stampMs;
    } else if (stampMs !== this.lastStampMs) {
      this.beforeLastStampMs = this.lastStampMs;
    }
    this.lastStampMs = stampMs;
    this.count += 1;
  }

  /** Entries after the last verified head. */
  get entries(): number {
    return this.count;
  }

  /** The first of them (its sequence), or 0 when there is none. */
  get firstEntry(): number {
    return this.count === 0 ? 0 : this.headSequence + 1;
  }

  /** The last verified head's entry (0: none). */
  get lastHeadEntry(): number {
    return this.headSequence;
  }

  /** `<logId>:<first entry>`, as the accepting setting names this tail. */
  acceptanceName(logId: string): string {
    return `${logId}:${this.firstEntry}`;
  }

  /**
   * Why a crash cannot have left these entries (one line naming the log and the first uncovered
   * entry), or undefined when one can.
   */
  problem(logId: string, interval: HeadInterval): string | undefined {
    if (this.count === 0) return undefined;
    const over: string[] = [];
    if (this.count > interval.everyCommands) over.push(`more than AUDIT_HEAD_EVERY_COMMANDS=${interval.everyCommands} entries`);
    if (this.beforeLastStampMs !== undefined && this.beforeLastStampMs - this.firstStampMs >= interval.everyMs) {
      over.push(`spanning ${this.beforeLastStampMs - this.firstStampMs} ms before their last batch, not less than AUDIT_HEAD_EVERY_SECONDS=${interval.everyMs / 1000}`);
    }
    if (over.length === 0) return undefined;
    const last = this.headSequence === 0 ? "no verified head" : `the last verified head (entry ${this.headSequence})`;
    return (
      `log ${logId}: first uncovered entry ${this.firstEntry}: ${this.count} entries (${this.firstEntry}…${this.headSequence + this.count}) follow ${last}, ` +
      `${over.join(" and ")}: more than a crash leaves, so heads were removed or the log was changed`
    );
  }
}

/** The tails an operator accepted by the setting: `<logId>:<entry>` names, or a line saying what is wrong with the value. */
export function parseAcceptedTails(value: string | undefined): { ok: true; names: string[] } | { ok: false; message: string } {
  if (value === undefined || value.trim() === "") return { ok: true, names: [] };
  const names = value.split(",").map((name) => name.trim());
  for (const name of names) {
    if (!/^[A-Za-z0-9_-]{1,64}:[1-9][0-9]{0,15}$/.test(name)) {
      return { ok: false, message: `must be <log>:<first uncovered entry>[,…] as the refusal names it (e.g. shard-0:37), not ${JSON.stringify(name.slice(0, 80))}` };
    }
  }
  return { ok: true, names };
}
