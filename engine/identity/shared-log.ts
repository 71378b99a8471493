/**
 * The identity store's writes in the cluster mode (issue 27): one identity log, the JetStream
 * stream `identity`, shared by every service node, and one identity state everywhere, folded from
 * that log by each node (docs/cluster.md, "Identities").
 *
 * - Following: each node tails the log (FollowingJournal.follow) from the last entry it applied
 *   and applies every entry as it arrives, whoever appended it: the effects of a command taken on
 *   another node (a revoked key, a disabled actor, an issued token) reach this node's state within
 *   the tail's delay. The idempotency entry of a followed command goes into this node's index, so
 *   a retry of that command here replays the original reply.
 * - Optimistic writes: a batch (everything staged in one event-loop turn, or while the previous
 *   batch was being appended: the group commit of the local mode) is decided against the applied
 *   state, on a copy-on-write view (speculative-state.ts), and appended with the expected last
 *   sequence = the last entry applied. If another node appended first the log refuses it
 *   (JournalFencedError) and stores nothing: the entries missed are applied, in order, and the
 *   batch is decided again on top of them (a decision may change: the key was just revoked, the
 *   identity was just provisioned). A staged command whose (actor, commandId) turns up among the
 *   entries missed was sent to two nodes at once: it gets the logged command's reply (same
 *   content) or idempotency_conflict (different content), and is not logged a second time.
 *   The entries missed usually come by the tail within moments; the log is read only if it lags.
 *   A batch refused again and again for CONTENTION_DEADLINE_MS gets `service_unavailable`; a
 *   node decides its next batch once the tail has delivered its previous one (afterOwnTail), so
 *   no node keeps winning every race from its own acknowledgement.
 * - Durability: a command's reply, and a token's "recorded", are given only once the batch's
 *   append resolved (JetStream acknowledged it: stored on a quorum). Its events are applied to
 *   the state right then, before the reply, so the node that took a revocation refuses the key at
 *   once. Entries followed while an append is in flight wait until it settles (the batch was
 *   decided on the state without them), so this node's own batch, which the tail delivers too, is
 *   applied once.
 * - Losing the log: an append that fails for any other reason (NATS unreachable past the
 *   journal's retry deadline) answers its batch `service_unavailable`, never an acknowledgement
 *   (the batch may have been stored: its entries then arrive by the tail like any other node's,
 *   and a retry of one of its commands replays it). The journal is then opened again in the
 *   background, and until that succeeds every command is answered `service_unavailable` at once.
 *   Reads (authentication, authority) go on answering from the last applied state meanwhile: a
 *   revocation taken on another node during the outage takes effect here when the tail resumes.
 * - Snapshots: taken right after this node's own append, when the applied state is exactly the
 *   log up to the journal's tail (the snapshot's mark), every `snapshotEveryCommands` entries
 *   applied (own and followed). They go to the shared snapshot bucket; any node's recovery uses
 *   the newest one that matches the stream.
 * - A followed entry that cannot be decoded or applied means this node's state no longer matches
 *   the log: the store fails closed (`failure`), as the local mode does when its log fails.
 */
import { assert } from "../rules/common/assert.js";
import type { Clock } from "../clock.js";
import { pauseFor, type TimerHandle, type Timers } from "../timers.js";
import { idempotencyKey, type IdempotencyIndex } from "../idempotency/index.js";
import { canFollow, type FollowingJournal, type JournalFollower } from "../journal/following-journal.js";
import { JournalFencedError, type Journal, type JournalEntry, type JournalPosition } from "../journal/journal.js";
import { decide } from "../rules/identity/decide.js";
import { evolve } from "../rules/identity/evolve.js";
import { errorReply, type ErrorReply, type IdentityCommand, type IdentityReply, type TokenRecord } from "../rules/identity/types.js";
import type { IdentityFold } from "./fold.js";
import { decodeIdentityFrame, encodeIdentityFrame, IDENTITY_FRAME_VERSION, type LoggedIdentityCommand } from "./frame.js";
import type { LoggedCommandKey } from "./snapshot.js";
import { speculativeState } from "./speculative-state.js";
import { temporarilyUnavailable, type TemporarilyUnavailable, type TokenRecording } from "./unavailable.js";

/**
 * How long a batch keeps being decided again after its appends were refused because other nodes
 * appended first, before its requests are answered `service_unavailable`. Each refusal means
 * another node made progress, so this only bites under sustained contention from several nodes.
 */
export const CONTENTION_DEADLINE_MS = 2_000;
/** How long a catch-up after a refusal waits for the tail to deliver the entries missed before reading them. */
const TAIL_WAIT_MS = 500;
/** Pauses between two attempts to open the journal again after it failed: doubling up to a second. */
const reopenPauseMs = (attempt: number): number => Math.min(1_000, 50 * 2 ** Math.min(attempt, 5));
/** The pause before a catch-up read that failed is tried again. */
const CATCH_UP_RETRY_MS = 200;

const INTERNAL_ERROR: ErrorReply = { ok: false, code: "internal_error", message: "identity store is unavailable" };
const IDEMPOTENCY_CONFLICT: ErrorReply = {
  ok: false,
  code: "idempotency_conflict",
  message: "commandId was already used with different content",
};
const LOG_UNREACHABLE = temporarilyUnavailable("the identity log cannot be reached; nothing was recorded, retry later");
const LOG_CONTENDED = temporarilyUnavailable("the identity log is busy with other nodes' writes; nothing was recorded, retry later");
const STORE_CLOSED = temporarilyUnavailable("the identity store is closing");

/** The idempotency claim a command holds while it is staged (IdempotencyIndex.claim, "fresh"). */
export interface FreshClaim {
  complete(location: { owner: "identity"; position: number }): void;
  abandon(): void;
}

export type SharedCommandReply = IdentityReply | TemporarilyUnavailable;

interface CommandRequest {
  readonly kind: "command";
  /** `meta.atMs` is stamped anew each time the command is decided. */
  readonly command: IdentityCommand;
  readonly fingerprint: string;
  readonly key: string;
  readonly claim: FreshClaim;
  settled: boolean;
  readonly resolve: (reply: SharedCommandReply) => void;
}

interface TokenRequest {
  readonly kind: "token";
  readonly token: TokenRecord;
  settled: boolean;
  readonly resolve: (outcome: TokenRecording) => void;
}

type Request = CommandRequest | TokenRequest;

interface Decided {
  readonly request: Request;
  readonly frame: LoggedIdentityCommand;
  readonly payload: Uint8Array;
}

export interface SharedLogOptions {
  readonly journal: FollowingJournal;
  /** Opens the journal again (after it failed); must give a following journal on the same stream. */
  readonly reopen: () => Promise<Journal>;
  /** The recovered state, folded through `appliedSequence`. */
  readonly fold: IdentityFold;
  readonly appliedSequence: number;
  readonly clock: Clock;
  /** What its waits, retries and deadlines run by. */
  readonly timers: Timers;
  readonly idempotency: IdempotencyIndex;
  readonly snapshotEveryCommands: number;
  readonly snapshotsKept: number;
}

export interface SharedLogStats {
  /** The last entry applied to this node's state. */
  readonly appliedSequence: number;
  readonly commits: number;
  readonly framesWritten: number;
  /** Entries appended by other nodes and applied here. */
  readonly framesFollowed: number;
  /** Appends refused because another node appended first. */
  readonly fences: number;
  /** Times the journal was opened again after it failed. */
  readonly reopens: number;
  readonly snapshotsWritten: number;
  readonly lastSnapshotError: string | null;
  /** The last trouble met (follower restart, failed append or read), for logs; holds no secret. */
  readonly lastProblem: string | null;
}

export class SharedIdentityLog {
  private journal: FollowingJournal;
  private follower: JournalFollower | undefined;
  private applied: number;
  /** Requests waiting for the next batch. */
  private staged: Request[] = [];
  /** Every unsettled command request (staged or in the batch being appended), by idempotency key. */
  private readonly waiting = new Map<string, CommandRequest>();
  /** Followed entries not applied yet (they arrived while a batch was being appended). */
  private inbox: JournalEntry[] = [];
  /** True while a batch's append is in flight: its decisions were made on the state as it is. */
  private appending = false;
  /** The last entry the tail has delivered (whoever appended it). */
  private followedUpTo: number;
  /** The last entry of this node's last appended batch. */
  private ownTail = 0;
  /** Wakes the batch loop once the tail has delivered this node's last batch. */
  private ownTailWaiter: (() => void) | undefined;
  /** The batch loop, while it runs (at most one). */
  private busy: Promise<void> | undefined;
  private flushScheduled = false;
  private retryHandle: TimerHandle | undefined;
  /** Why the journal failed, while it is being opened again. */
  private broken: unknown = undefined;
  private reopening: Promise<void> | undefined;
  private fatal: unknown = undefined;
  private closed = false;
  private appliedWaiters: Array<{ sequence: number; resolve: () => void }> = [];
  private framesSinceSnapshot = 0;
  private commits = 0;
  private framesWritten = 0;
  private framesFollowed = 0;
  private fences = 0;
  private reopens = 0;
  private snapshotsWritten = 0;
  private lastSnapshotError: string | null = null;
  private lastProblem: string | null = null;

  private constructor(private readonly options: SharedLogOptions) {
    this.journal = options.journal;
    this.applied = options.appliedSequence;
    this.followedUpTo = options.appliedSequence;
  }

  /** Starts following the log after the recovered state; resolves once the tail is set up. */
  static async start(options: SharedLogOptions): Promise<SharedIdentityLog> {
    const log = new SharedIdentityLog(options);
    log.follower = await log.journal.follow(log.applied, (entry) => log.onFollowed(entry), (problem) => log.noteProblem(problem));
    return log;
  }

  private get fold(): IdentityFold {
    return this.options.fold;
  }

  /** Set when this node's state no longer matches the log: every read must fail closed. */
  get failure(): unknown {
    return this.fatal;
  }

  /** False while the journal is being opened again after it failed (commands are answered 503 meanwhile). */
  get writable(): boolean {
    return this.broken === undefined && this.fatal === undefined && !this.closed;
  }

  get appliedSequence(): number {
    return this.applied;
  }

  get stats(): SharedLogStats {
    return {
      appliedSequence: this.applied,
      commits: this.commits,
      framesWritten: this.framesWritten,
      framesFollowed: this.framesFollowed,
      fences: this.fences,
      reopens: this.reopens,
      snapshotsWritten: this.snapshotsWritten,
      lastSnapshotError: this.lastSnapshotError,
      lastProblem: this.lastProblem,
    };
  }

  /**
   * Resolves once everything the log held when this was called is applied here (an entry another
   * node appended a moment ago, say a token it issued), or after `timeoutMs` either way. Resolves
   * true when caught up.
   */
  async freshen(timeoutMs: number): Promise<boolean> {
    try {
      const latest = await this.journal.latestSequence();
      await this.whenApplied(latest, timeoutMs);
      return true;
    } catch {
      return false;
    }
  }

  /** Resolves once entry `sequence` (by whichever node) is applied here; rejects after `timeoutMs`. */
  whenApplied(sequence: number, timeoutMs: number): Promise<void> {
    if (this.applied >= sequence) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = this.options.timers.after(timeoutMs, () => {
        this.appliedWaiters = this.appliedWaiters.filter((waiter) => waiter !== entry);
        reject(new Error(`identity entry ${sequence} not applied within ${timeoutMs} ms (applied: ${this.applied})`));
      });
      const entry = {
        sequence,
        resolve: () => {
          timer.cancel();
          resolve();
        },
      };
      this.appliedWaiters.push(entry);
    });
  }

  /**
   * Logs `command` (its idempotency key freshly claimed by the caller) in the next batch; resolves
   * with its reply once the batch is durable, or with a reply taken from another node's entry for
   * the same key, or `service_unavailable` (the claim is then abandoned).
   */
  submitCommand(command: IdentityCommand, fingerprint: string, claim: FreshClaim): Promise<SharedCommandReply> {
    if (!this.writable) {
      claim.abandon();
      return Promise.resolve(this.closed ? STORE_CLOSED : this.fatal !== undefined ? INTERNAL_ERROR : LOG_UNREACHABLE);
    }
    return new Promise((resolve) => {
      const request: CommandRequest = {
        kind: "command",
        command,
        fingerprint,
        key: idempotencyKey(command.meta.actorId, command.meta.commandId),
        claim,
        settled: false,
        resolve,
      };
      this.waiting.set(request.key, request);
      this.stage(request);
    });
  }

  /** Logs an issued token's record in the next batch. */
  submitToken(token: TokenRecord): Promise<TokenRecording> {
    if (!this.writable) return Promise.resolve("unavailable");
    return new Promise((resolve) => this.stage({ kind: "token", token, settled: false, resolve }));
  }

  /** The reply logged with the command at `position`, by whichever node (read from the stream if need be). */
  async replyAt(position: JournalPosition): Promise<IdentityReply> {
    const frame = decodeIdentityFrame((await this.journal.readAt(position)).payload);
    assert(frame.r !== undefined, "the frame at this position holds no reply (not an identity command)");
    return frame.r;
  }

  /** Logs what is staged (as far as the log lets it), stops following and closes the journal. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.retryHandle?.cancel();
    this.retryHandle = undefined;
    this.kick();
    while (this.busy !== undefined) await this.busy;
    this.closed = true;
    for (const request of this.staged.splice(0)) this.settleUnavailable(request, STORE_CLOSED);
    await this.reopening;
    await this.follower?.stop();
    await this.journal.close();
  }

  // -------------------------------------------------------------------------------------------
  // The batch loop: applies followed entries, then decides and appends what is staged.
  // -------------------------------------------------------------------------------------------

  private stage(request: Request): void {
    this.staged.push(request);
    // Staged in this turn: appended after it, unless a batch is being appended (then right after it).
    if (this.busy === undefined && !this.flushScheduled) {
      this.flushScheduled = true;
      this.options.timers.soon(() => {
        this.flushScheduled = false;
        this.kick();
      });
    }
  }

  private kick(): void {
    // A catch-up that failed is tried again by its timer, not at once.
    if (this.busy !== undefined || this.closed || this.retryHandle !== undefined) return;
    if (this.staged.length === 0 && this.inbox.length === 0) return;
    this.busy = this.run()
      // Only a bug gets here (every expected failure is answered inside): the state cannot be trusted.
      .catch((error: unknown) => this.failClosed(error))
      .finally(() => {
        this.busy = undefined;
        this.kick();
      });
  }

  private async run(): Promise<void> {
    for (;;) {
      if (!this.drainInbox()) {
        try {
          await this.catchUp();
        } catch (error) {
          // The tail's entries wait in the inbox; try again shortly (the batch below waits too).
          this.noteProblem(error);
          this.retryHandle ??= this.options.timers.after(CATCH_UP_RETRY_MS, () => {
            this.retryHandle = undefined;
            this.kick();
          });
          return;
        }
      }
      if (this.staged.length === 0) return;
      await this.commit(this.staged.splice(0));
    }
  }

  /** A followed entry: applied now, unless a batch is being appended (then when it settles). */
  private onFollowed(entry: JournalEntry): void {
    if (this.closed || this.fatal !== undefined) return;
    this.inbox.push(entry);
    if (entry.sequence > this.followedUpTo) this.followedUpTo = entry.sequence;
    if (this.followedUpTo >= this.ownTail) this.ownTailWaiter?.();
    if (!this.appending && !this.drainInbox()) this.kick();
  }

  /**
   * Waits (briefly, bounded) until the tail has delivered this node's last batch. Every node learns
   * of a batch from the tail at about the same moment; a node that went on from its own
   * acknowledgement instead would always decide its next batch first, and under contention the
   * others' batches, refused and decided again each time, could be refused for good.
   */
  private async afterOwnTail(): Promise<void> {
    if (this.followedUpTo >= this.ownTail) return;
    await new Promise<void>((resolve) => {
      const timer = this.options.timers.after(TAIL_WAIT_MS, done);
      function done(): void {
        timer.cancel();
        resolve();
      }
      this.ownTailWaiter = done;
    });
    this.ownTailWaiter = undefined;
  }

  /** Applies the inbox's entries that follow the applied state; false if one is missing before them. */
  private drainInbox(): boolean {
    let taken = 0;
    let complete = true;
    for (const entry of this.inbox) {
      if (entry.sequence > this.applied + 1) {
        complete = false;
        break;
      }
      taken++;
      if (entry.sequence === this.applied + 1) this.applyLogged(entry);
    }
    this.inbox.splice(0, taken);
    return complete;
  }

  /** Reads the entries after the applied state from the log and applies them. */
  private async catchUp(): Promise<void> {
    await this.journal.read(this.applied, (entry) => {
      if (entry.sequence === this.applied + 1) this.applyLogged(entry);
    });
    this.drainInbox();
  }

  /**
   * After a refusal: the entries through `lastSequence` (the log's tail the refusal named) applied,
   * from the tail as it delivers them (usually already there), or read from the log if it lags.
   */
  private async catchUpTo(lastSequence: number): Promise<void> {
    this.drainInbox();
    if (this.applied >= lastSequence) return;
    try {
      await this.whenApplied(lastSequence, TAIL_WAIT_MS);
    } catch {
      await this.catchUp();
    }
  }

  private async commit(batch: Request[]): Promise<void> {
    const deadline = this.options.timers.nowMs() + CONTENTION_DEADLINE_MS;
    for (;;) {
      const live = batch.filter((request) => !request.settled);
      if (live.length === 0) return;
      if (!this.writable) {
        for (const request of live) this.settleUnavailable(request, this.fatal !== undefined ? INTERNAL_ERROR : LOG_UNREACHABLE);
        return;
      }
      await this.afterOwnTail();
      this.drainInbox();
      const decided = this.decideBatch(live);
      if (decided.length === 0) return;
      let positions: JournalPosition[];
      this.appending = true;
      try {
        positions = await this.journal.append(
          decided.map((entry) => entry.payload),
          { expectedLastSequence: this.applied },
        );
      } catch (error) {
        this.appending = false;
        if (!(error instanceof JournalFencedError)) {
          this.breakJournal(error);
          continue; // answers the batch: the journal is no longer writable
        }
        this.fences++;
        if (this.options.timers.nowMs() >= deadline) {
          for (const request of batch) if (!request.settled) this.settleUnavailable(request, LOG_CONTENDED);
          return;
        }
        try {
          await this.catchUpTo(error.lastSequence);
        } catch (readError) {
          this.noteProblem(readError);
          for (const request of batch) if (!request.settled) this.settleUnavailable(request, LOG_UNREACHABLE);
          return;
        }
        continue;
      }
      this.appending = false;
      try {
        this.applyOwn(decided, positions);
      } catch (error) {
        // Events decided on this very state would not apply: a bug, and the state can no longer be trusted.
        this.failClosed(error);
        return;
      }
      await this.maybeSnapshot();
      return;
    }
  }

  /** Decides `requests` in order against the applied state plus the ones before them (a view). */
  private decideBatch(requests: readonly Request[]): Decided[] {
    const view = speculativeState(this.fold.state);
    const decided: Decided[] = [];
    for (const request of requests) {
      try {
        if (request.kind === "command") {
          request.command.meta.atMs = this.fold.stamp(this.options.clock);
          const decision = decide(view, request.command);
          const reply: IdentityReply = decision.accepted ? (decision.reply as IdentityReply) : errorReply(decision.rejection);
          const events = decision.accepted ? decision.events : [];
          for (const event of events) evolve(view, event);
          const frame: LoggedIdentityCommand = { v: IDENTITY_FRAME_VERSION, c: request.command, f: request.fingerprint, e: events, r: reply };
          decided.push({ request, frame, payload: encodeIdentityFrame(frame) });
        } else {
          const command = { type: "token.issue" as const, meta: { actorId: request.token.actorId, atMs: this.fold.stamp(this.options.clock) }, args: request.token };
          const decision = decide(view, command);
          if (!decision.accepted) {
            request.settled = true;
            request.resolve("refused");
            continue;
          }
          for (const event of decision.events) evolve(view, event);
          const frame: LoggedIdentityCommand = { v: IDENTITY_FRAME_VERSION, c: command, e: decision.events };
          decided.push({ request, frame, payload: encodeIdentityFrame(frame) });
        }
      } catch (error) {
        this.noteProblem(error);
        if (request.kind === "command") this.settleCommand(request, INTERNAL_ERROR, undefined);
        else this.settleToken(request, "unavailable");
      }
    }
    return decided;
  }

  /** This node's batch is durable: fold it in (as any follower will) and answer its requests. */
  private applyOwn(decided: readonly Decided[], positions: readonly JournalPosition[]): void {
    assert(positions.length === decided.length, "one position per appended entry");
    this.ownTail = this.applied + decided.length;
    this.commits++;
    this.framesWritten += decided.length;
    decided.forEach(({ request, frame }, index) => {
      const position = positions[index] as JournalPosition;
      this.fold.replay(frame, position);
      this.applied += 1;
      this.framesSinceSnapshot++;
      if (request.kind === "command") {
        this.settleCommand(request, frame.r as IdentityReply, position);
      } else {
        this.fold.sweepExpiredTokens(frame.c.meta.atMs);
        this.settleToken(request, "recorded");
      }
    });
    this.wakeAppliedWaiters();
  }

  /** Another node's entry (or one of this node's batches whose acknowledgement was lost). */
  private applyLogged(entry: JournalEntry): void {
    try {
      const frame = decodeIdentityFrame(entry.payload);
      const key = this.fold.replay(frame, entry.position);
      this.applied = entry.sequence;
      this.framesFollowed++;
      this.framesSinceSnapshot++;
      if (key !== undefined) this.indexFollowed(key, frame);
      if (frame.c.type === "token.issue") this.fold.sweepExpiredTokens(frame.c.meta.atMs);
    } catch (error) {
      this.failClosed(error);
      return;
    }
    this.wakeAppliedWaiters();
  }

  /** A followed command's idempotency entry: it answers a staged command of the same key, or goes into the index. */
  private indexFollowed([actorId, commandId, fingerprint, position]: LoggedCommandKey, frame: LoggedIdentityCommand): void {
    const location = { owner: "identity" as const, position };
    const request = this.waiting.get(idempotencyKey(actorId, commandId));
    if (request !== undefined && request.fingerprint === fingerprint) {
      // The same command was sent here and to the node that logged it: one command, one reply.
      this.settleCommand(request, frame.r as IdentityReply, position);
      return;
    }
    if (request !== undefined) this.settleCommand(request, IDEMPOTENCY_CONFLICT, undefined);
    try {
      this.options.idempotency.restore(actorId, commandId, fingerprint, location);
    } catch (error) {
      // The key is known here with other content: a market command took it on this node while
      // another node logged an identity command under it. The log keeps both; note it.
      this.noteProblem(error);
    }
  }

  private settleCommand(request: CommandRequest, reply: SharedCommandReply, position: JournalPosition | undefined): void {
    if (request.settled) return;
    request.settled = true;
    if (this.waiting.get(request.key) === request) this.waiting.delete(request.key);
    if (position === undefined) request.claim.abandon();
    else request.claim.complete({ owner: "identity", position });
    request.resolve(reply);
  }

  private settleToken(request: TokenRequest, outcome: TokenRecording): void {
    if (request.settled) return;
    request.settled = true;
    request.resolve(outcome);
  }

  private settleUnavailable(request: Request, reply: TemporarilyUnavailable | ErrorReply): void {
    if (request.kind === "command") this.settleCommand(request, reply, undefined);
    else this.settleToken(request, "unavailable");
  }

  private wakeAppliedWaiters(): void {
    if (this.appliedWaiters.length === 0) return;
    const due = this.appliedWaiters.filter((waiter) => waiter.sequence <= this.applied);
    if (due.length === 0) return;
    this.appliedWaiters = this.appliedWaiters.filter((waiter) => waiter.sequence > this.applied);
    for (const waiter of due) waiter.resolve();
  }

  /**
   * Right after this node's own append, the applied state is the log through the journal's tail,
   * which is what the snapshot is marked with; if the journal already knows of a later batch
   * (followed meanwhile), the snapshot waits for a later append.
   */
  private async maybeSnapshot(): Promise<void> {
    if (this.framesSinceSnapshot < this.options.snapshotEveryCommands) return;
    if (this.journal.lastSequence !== this.applied) return;
    this.framesSinceSnapshot = 0;
    try {
      await this.journal.writeSnapshot(this.fold.snapshot(), this.options.snapshotsKept);
      this.snapshotsWritten++;
      this.lastSnapshotError = null;
    } catch (error) {
      this.lastSnapshotError = error instanceof Error ? error.message : String(error);
    }
  }

  // -------------------------------------------------------------------------------------------
  // Failures.
  // -------------------------------------------------------------------------------------------

  /** The journal failed for good: stop using it, and open it again in the background. */
  private breakJournal(error: unknown): void {
    this.noteProblem(error);
    if (this.broken !== undefined) return;
    this.broken = error;
    this.reopening = this.reopenJournal().finally(() => (this.reopening = undefined));
  }

  private async reopenJournal(): Promise<void> {
    const failed = this.journal;
    const follower = this.follower;
    this.follower = undefined;
    await follower?.stop().catch((error: unknown) => this.noteProblem(error));
    await failed.close().catch((error: unknown) => this.noteProblem(error));
    for (let attempt = 1; !this.closed && this.fatal === undefined; attempt++) {
      let opened: Journal | undefined;
      try {
        opened = await this.options.reopen();
        if (!canFollow(opened)) throw new Error("the identity journal opened again cannot follow its stream");
        const journal = opened;
        // From the applied state on: a batch of this node's that was stored after all arrives here.
        this.follower = await journal.follow(this.applied, (entry) => this.onFollowed(entry), (problem) => this.noteProblem(problem));
        this.journal = journal;
        this.broken = undefined;
        this.reopens++;
        this.kick();
        return;
      } catch (error) {
        this.noteProblem(error);
        await opened?.close().catch(() => undefined);
      }
      await pauseFor(this.options.timers, reopenPauseMs(attempt));
    }
  }

  /** This node's state no longer matches the log (a followed entry would not apply): fail closed. */
  private failClosed(error: unknown): void {
    this.noteProblem(error);
    if (this.fatal !== undefined) return;
    this.fatal = error;
    for (const request of this.staged.splice(0)) this.settleUnavailable(request, INTERNAL_ERROR);
    for (const request of [...this.waiting.values()]) this.settleCommand(request, INTERNAL_ERROR, undefined);
    this.inbox = [];
  }

  private noteProblem(error: unknown): void {
    this.lastProblem = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  }
}
