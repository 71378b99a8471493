/**
 * The durable identity store: a thin shell around the pure decider (decide.ts / evolve.ts).
 *
 * - Every admin/delegation command that passes the static checks claims its idempotency key in the
 *   shared IdempotencyIndex (owner "identity"), is decided against the current state, appended to
 *   the identity log with its decision and reply, applied, and acknowledged only after the group
 *   commit that made its frame durable.
 * - The log is a Journal (engine/journal/), the seam the shards append through; by default a
 *   WorkerJournal: the file journal in `DATA_DIR/identity` on a thread of its own, so its writes and
 *   fdatasyncs never block the gateway's thread.
 * - Group commit, as in a shard: one append is in flight at a time, and everything staged while it
 *   commits becomes the next batch (one write + one fdatasync for the file journal). No entry's
 *   promise resolves before its batch is durable.
 * - Recovery on open: the journal's newest snapshot (one whose chain head matches the log), then the
 *   entries after it; the idempotency entries of every logged command are restored into the index.
 * - Fail-stop: if an append fails the journal is permanently failed (storage/ never retries an
 *   fsync), and so is this store: every later command replies `internal_error` and every read used
 *   for authentication or authority fails closed. Restart to recover from the durable log.
 *
 * Cluster mode (issue 27). Which mode the store runs in is decided by the journal `openJournal`
 * gives: one that can follow its stream (following-journal.ts; the JetStream journal on the
 * cluster's `identity` stream) is a log shared with the other service nodes, and the store is one
 * of its writers (shared-log.ts): it follows the log and applies every node's entries, decides a
 * batch against what it has applied and appends it only if nobody appended meanwhile (deciding
 * again on top of the entries it missed otherwise), and answers `service_unavailable` rather than
 * failing for good when the log cannot be reached. The file journal cannot follow, so the embedded
 * default (a WorkerJournal) runs exactly the single-writer path described above.
 */
import * as fs from "node:fs";
import { assert } from "../rules/common/assert.js";
import { type Actor, type ActorKey, type Delegation, type DisableActorBody, type DisablePrincipalBody, type IssueDelegationBody, type Principal, type ProvisionedIdentity, type ProvisionIdentityBody, type Rejection, type RevokeDelegationBody, type RevokeKeyBody } from "@market-service/client/wire";
import { WorkerJournal } from "../journal/worker-journal.js";
import type { Journal, JournalPosition, JournalRecovery } from "../journal/journal.js";
import { canFollow } from "../journal/following-journal.js";
import type { Clock } from "../clock.js";
import { systemTimers, type Timers } from "../timers.js";
import { commandFingerprint } from "../idempotency/fingerprint.js";
import type { IdempotencyIndex } from "../idempotency/index.js";
import { decide } from "../rules/identity/decide.js";
import { evolve } from "../rules/identity/evolve.js";
import { decodeIdentityFrame, encodeIdentityFrame, IDENTITY_FRAME_VERSION } from "./frame.js";
import { IdentityFold } from "./fold.js";
import { SharedIdentityLog, type SharedCommandReply, type SharedLogStats } from "./shared-log.js";
import { temporarilyUnavailable, type TemporarilyUnavailable, type TokenRecording } from "./unavailable.js";
import { actorView, delegationView, keyView, principalView, type IdentityState } from "../rules/identity/state.js";
import { errorReply, type ErrorReply, type IdentityCommand, type IdentityReply, type Reply, type TokenRecord } from "../rules/identity/types.js";
import {
  prepareIssueDelegation,
  prepareProvision,
  prepareRevokeDelegation,
  prepareSingleId,
  type Prepared,
} from "./validate.js";

/** Default: a snapshot after every 10,000 logged commands (tokens included). */
export const DEFAULT_SNAPSHOT_EVERY_COMMANDS = 10_000;
/** Snapshots kept on disk (the newest valid ones). */
const SNAPSHOTS_KEPT = 2;
export { TOKEN_SWEEP_INTERVAL_MS } from "./fold.js";

export interface IdentityStoreOptions {
  /** Directory of the identity log (the service passes `DATA_DIR/identity`); created 0700 if missing. */
  readonly dir: string;
  /** Source of server command times. */
  readonly clock: Clock;
  /** Cluster mode: the timers the shared log's waits and retries run by (default Node's). */
  readonly timers?: Timers;
  /** The service-wide idempotency index; logged commands are restored into it at open. */
  readonly idempotency: IdempotencyIndex;
  /** Operator allowlist (spec §5.4): who may provision identities and run the other operator commands. */
  readonly isOperator: (actorId: string) => boolean;
  readonly snapshotEveryCommands?: number;
  /** Passed to the journal (tests use small segments to exercise rotation). */
  readonly segmentSizeBytes?: number;
  /**
   * Opens the log's journal; default: a WorkerJournal (tests open a FileJournal on injected
   * file-system calls). A journal that can follow its stream (the cluster's JetStreamJournal on
   * `identity`) makes the store one writer of a shared log; it is called again to reopen the
   * journal after it failed.
   */
  readonly openJournal?: (options: { dir: string; segmentSizeBytes?: number }) => Promise<Journal>;
}

export interface IdentityRecoveryReport {
  readonly log: JournalRecovery;
  /** Lsn of the snapshot recovery started from, or null (replayed from the first frame). */
  readonly snapshotLsn: number | null;
  /** Why the newest valid snapshot file was not used (it does not match the log), if so. */
  readonly snapshotIgnored: string | null;
  readonly framesReplayed: number;
  readonly commandsRestored: number;
}

export interface IdentityStoreStats {
  readonly lastLsn: number;
  /** Group commits performed by this process (each is one pwrite + one fdatasync). */
  readonly commits: number;
  readonly framesWritten: number;
  readonly snapshotsWritten: number;
  /** Message of the last failed snapshot write (snapshots are an optimization; the log is the truth). */
  readonly lastSnapshotError: string | null;
  /** The cluster mode's figures (following, fences, reopenings); undefined in the embedded default. */
  readonly shared: SharedLogStats | undefined;
}

/** What a command may be answered: its reply, or (cluster mode) "cannot be logged for now". */
export type IdentityCommandReply<Body> = Reply<Body> | TemporarilyUnavailable;

/** One identity command as the integrator hands it over (the path id, if any, separately). */
export type IdentityRequest =
  | { readonly operation: "identity.provision"; readonly body: ProvisionIdentityBody }
  | { readonly operation: "delegation.issue"; readonly body: IssueDelegationBody }
  | { readonly operation: "delegation.revoke"; readonly delegationId: string; readonly body: RevokeDelegationBody }
  | { readonly operation: "actor.disable"; readonly body: DisableActorBody }
  | { readonly operation: "principal.disable"; readonly body: DisablePrincipalBody }
  | { readonly operation: "key.revoke"; readonly body: RevokeKeyBody };

interface Batch {
  readonly payloads: Uint8Array[];
  /** Per entry: the idempotency key of the command it logs, or undefined (a token). */
  readonly keys: Array<readonly [actorId: string, commandId: string, fingerprint: string] | undefined>;
  /** Each entry's position, once the batch is durable. */
  readonly durable: Promise<JournalPosition[]>;
  readonly resolve: (positions: JournalPosition[]) => void;
  readonly reject: (error: unknown) => void;
}

const INTERNAL_ERROR: ErrorReply = { ok: false, code: "internal_error", message: "identity store is unavailable" };
const REPLY_UNREADABLE: TemporarilyUnavailable = temporarilyUnavailable("the identity log cannot be read now to replay this command's reply; retry later");
const IDEMPOTENCY_CONFLICT: ErrorReply = {
  ok: false,
  code: "idempotency_conflict",
  message: "commandId was already used with different content",
};

export class IdentityStore {
  readonly recovery: IdentityRecoveryReport;
  private readonly journal: Journal;
  private readonly clock: Clock;
  private readonly idempotency: IdempotencyIndex;
  private readonly isOperator: (actorId: string) => boolean;
  private readonly snapshotEveryCommands: number;
  /** The state folded from the log (and, in the embedded default, from what is staged). */
  private readonly fold: IdentityFold;
  /** Cluster mode: the shared log's writer and follower (which then own the journal). */
  private readonly shared: SharedIdentityLog | undefined;
  /** What is staged for the next append. */
  private batch: Batch | undefined;
  private flushHandle: NodeJS.Immediate | undefined;
  /** The append in flight (at most one), and the snapshot after it if one is due. */
  private inFlight: Promise<void> | undefined;
  private commits = 0;
  private framesWritten = 0;
  private framesSinceSnapshot = 0;
  private snapshotsWritten = 0;
  private lastSnapshotError: string | null = null;
  private failure: unknown = undefined;
  private closed = false;

  private constructor(
    options: IdentityStoreOptions,
    journal: Journal,
    recovered: { fold: IdentityFold; report: IdentityRecoveryReport },
    shared: SharedIdentityLog | undefined,
  ) {
    this.journal = journal;
    this.clock = options.clock;
    this.idempotency = options.idempotency;
    this.isOperator = options.isOperator;
    this.snapshotEveryCommands = snapshotEvery(options);
    this.fold = recovered.fold;
    this.recovery = recovered.report;
    this.shared = shared;
  }

  /**
   * Opens (or creates) the store in `options.dir`, recovers its state and fills the idempotency
   * index; in the cluster mode (a journal that can follow), then starts following the shared log.
   */
  static async open(options: IdentityStoreOptions): Promise<IdentityStore> {
    fs.mkdirSync(options.dir, { recursive: true, mode: 0o700 });
    const openJournal = options.openJournal ?? WorkerJournal.open;
    const journalOptions = { dir: options.dir, ...(options.segmentSizeBytes === undefined ? {} : { segmentSizeBytes: options.segmentSizeBytes }) };
    const journal = await openJournal(journalOptions);
    try {
      const recovered = await recover(journal);
      for (const [actorId, commandId, fingerprint, position] of recovered.fold.commands) {
        options.idempotency.restore(actorId, commandId, fingerprint, { owner: "identity", position });
      }
      const shared = canFollow(journal)
        ? await SharedIdentityLog.start({
            journal,
            reopen: () => openJournal(journalOptions),
            fold: recovered.fold,
            appliedSequence: recovered.appliedSequence,
            clock: options.clock,
            timers: options.timers ?? systemTimers,
            idempotency: options.idempotency,
            snapshotEveryCommands: snapshotEvery(options),
            snapshotsKept: SNAPSHOTS_KEPT,
          })
        : undefined;
      return new IdentityStore(options, journal, recovered, shared);
    } catch (error) {
      await journal.close();
      throw error;
    }
  }

  // -------------------------------------------------------------------------------------------
  // Reads (authentication, authority, the integrator).
  // -------------------------------------------------------------------------------------------

  /**
   * The live state, for the authenticators and the authority check. Read-only by contract: only
   * this store mutates it. In the embedded default it includes commands staged in the current
   * event-loop turn; in the cluster mode it is the shared log as applied here (a batch's effects
   * appear once it is durable, before its replies), and it stays readable while the log cannot be
   * reached: authentication then answers from the last state applied.
   */
  get state(): IdentityState {
    return this.fold.state;
  }

  /**
   * True once a commit failed (fail-stop) or the store was closed; in the cluster mode, once a
   * followed entry would not apply (the state no longer matches the log). Readers must then fail
   * closed. Losing the cluster's log is not this: see `writable`.
   */
  get unavailable(): boolean {
    if (this.closed) return true;
    return this.shared === undefined ? this.failure !== undefined : this.shared.failure !== undefined;
  }

  /** False while commands cannot be logged: the store is unavailable, or (cluster mode) the log is being reopened. */
  get writable(): boolean {
    return !this.unavailable && (this.shared === undefined || this.shared.writable);
  }

  /** The failure that made the store fail-stop, if any (for the integrator's log; holds no secret). */
  get failureCause(): unknown {
    return this.shared === undefined ? this.failure : this.shared.failure;
  }

  get stats(): IdentityStoreStats {
    const shared = this.shared?.stats;
    if (shared !== undefined) {
      return {
        lastLsn: shared.appliedSequence,
        commits: shared.commits,
        framesWritten: shared.framesWritten,
        snapshotsWritten: shared.snapshotsWritten,
        lastSnapshotError: shared.lastSnapshotError,
        shared,
      };
    }
    return {
      lastLsn: this.journal.lastSequence,
      commits: this.commits,
      framesWritten: this.framesWritten,
      snapshotsWritten: this.snapshotsWritten,
      lastSnapshotError: this.lastSnapshotError,
      shared: undefined,
    };
  }

  /** The last log entry this store's state includes (durable entries only). */
  get appliedSequence(): number {
    return this.shared === undefined ? this.journal.lastSequence : this.shared.appliedSequence;
  }

  /**
   * Resolves once the log's entry `sequence` is part of this store's state (cluster mode: applied
   * from the tail; the embedded default has only its own entries, so it resolves or times out).
   */
  whenApplied(sequence: number, timeoutMs: number): Promise<void> {
    if (this.shared !== undefined) return this.shared.whenApplied(sequence, timeoutMs);
    if (this.journal.lastSequence >= sequence) return Promise.resolve();
    return Promise.reject(new Error(`identity entry ${sequence} is not in this single-writer log (last: ${this.journal.lastSequence})`));
  }

  principal(id: string): Principal | undefined {
    const record = this.fold.state.principals.get(id);
    return record === undefined ? undefined : principalView(record);
  }

  actor(id: string): Actor | undefined {
    const record = this.fold.state.actors.get(id);
    return record === undefined ? undefined : actorView(record);
  }

  key(id: string): ActorKey | undefined {
    const record = this.fold.state.keys.get(id);
    return record === undefined ? undefined : keyView(record);
  }

  delegation(id: string): Delegation | undefined {
    const record = this.fold.state.delegations.get(id);
    return record === undefined ? undefined : delegationView(record);
  }

  // -------------------------------------------------------------------------------------------
  // Commands.
  // -------------------------------------------------------------------------------------------

  /** POST /v1/admin/identities. `actorId` is the authenticated actor (must be an operator). */
  provisionIdentity(actorId: string, body: ProvisionIdentityBody): Promise<IdentityCommandReply<ProvisionedIdentity>> {
    return this.execute(actorId, { operation: "identity.provision", body }) as Promise<IdentityCommandReply<ProvisionedIdentity>>;
  }

  /** POST /v1/delegations. */
  issueDelegation(actorId: string, body: IssueDelegationBody): Promise<IdentityCommandReply<Delegation>> {
    return this.execute(actorId, { operation: "delegation.issue", body }) as Promise<IdentityCommandReply<Delegation>>;
  }

  /** POST /v1/delegations/{delegationId}/revoke. */
  revokeDelegation(actorId: string, delegationId: string, body: RevokeDelegationBody): Promise<IdentityCommandReply<Delegation>> {
    return this.execute(actorId, { operation: "delegation.revoke", delegationId, body }) as Promise<IdentityCommandReply<Delegation>>;
  }

  /** Operator command (no route in the spec): disable an actor; its tokens stop working at once. */
  disableActor(actorId: string, body: DisableActorBody): Promise<IdentityCommandReply<Actor>> {
    return this.execute(actorId, { operation: "actor.disable", body }) as Promise<IdentityCommandReply<Actor>>;
  }

  /** Operator command: disable a principal; nobody can act for it afterwards. */
  disablePrincipal(actorId: string, body: DisablePrincipalBody): Promise<IdentityCommandReply<Principal>> {
    return this.execute(actorId, { operation: "principal.disable", body }) as Promise<IdentityCommandReply<Principal>>;
  }

  /** Operator command: revoke a key; its tokens stop working at once. */
  revokeKey(actorId: string, body: RevokeKeyBody): Promise<IdentityCommandReply<ActorKey>> {
    return this.execute(actorId, { operation: "key.revoke", body }) as Promise<IdentityCommandReply<ActorKey>>;
  }

  /**
   * Runs one identity command for the authenticated `actorId`: static checks, permission, then the
   * idempotency claim (`commandFingerprint(operation, normalized args)`) and, on a fresh claim,
   * decide + log + apply + group commit. Replays return the logged reply.
   */
  async execute(actorId: string, request: IdentityRequest): Promise<SharedCommandReply> {
    if (this.unavailable) return INTERNAL_ERROR;
    const prepared = prepareRequest(request);
    if (!prepared.ok) return errorReply(prepared.rejection);
    const refusal = this.permissionProblem(actorId, request.operation, prepared.args);
    if (refusal !== undefined) return errorReply(refusal);

    const operation = request.operation;
    const fingerprint = commandFingerprint(operation, prepared.args);
    for (;;) {
      const claim = this.idempotency.claim(actorId, prepared.commandId, fingerprint);
      switch (claim.kind) {
        case "conflict":
          return IDEMPOTENCY_CONFLICT;
        case "replay":
          return this.replyAtLocation(claim.location.owner, claim.location.position);
        case "pending": {
          const location = await claim.settled;
          if (location === undefined) continue; // the first attempt was abandoned: try afresh
          if (!claim.sameContent) return IDEMPOTENCY_CONFLICT;
          return this.replyAtLocation(location.owner, location.position);
        }
        case "fresh": {
          const command = {
            type: operation,
            meta: { commandId: prepared.commandId, actorId, atMs: 0 },
            args: prepared.args,
          } as IdentityCommand;
          // Cluster mode: decided when its batch is appended, against the log as applied then.
          if (this.shared !== undefined) return this.shared.submitCommand(command, fingerprint, claim);
          let durable: Promise<JournalPosition>;
          let reply: IdentityReply;
          try {
            if (this.unavailable) throw new Error("identity store is unavailable");
            command.meta.atMs = this.fold.stamp(this.clock);
            const decision = decide(this.fold.state, command);
            reply = decision.accepted ? (decision.reply as IdentityReply) : errorReply(decision.rejection);
            const events = decision.accepted ? decision.events : [];
            const payload = encodeIdentityFrame({ v: IDENTITY_FRAME_VERSION, c: command, f: fingerprint, e: events, r: reply });
            durable = this.stage(payload, [actorId, prepared.commandId, fingerprint]);
            for (const event of events) evolve(this.fold.state, event);
          } catch {
            claim.abandon();
            return INTERNAL_ERROR;
          }
          let position: JournalPosition;
          try {
            position = await durable;
          } catch {
            claim.abandon();
            return INTERNAL_ERROR;
          }
          claim.complete({ owner: "identity", position });
          return reply;
        }
      }
    }
  }

  /**
   * Cluster mode: waits (at most `timeoutMs`) until this node has applied everything the shared
   * identity log holds now, and resolves true if it did; false at once on a single node (its log
   * has no other writer). What an unknown token is checked again after: another node may have
   * issued it a moment ago.
   */
  freshen(timeoutMs: number): Promise<boolean> {
    return this.shared === undefined ? Promise.resolve(false) : this.shared.freshen(timeoutMs);
  }

  /** The reply logged with the command at `position` (for the idempotency index's replays). */
  async replyAt(position: number): Promise<IdentityReply> {
    const entry = decodeIdentityFrame((await this.journal.readAt(position)).payload);
    assert(entry.r !== undefined, "the frame at this position holds no reply (not an identity command)");
    return entry.r;
  }

  /**
   * Persists an issued token (hash only) in the current group commit. Resolves "recorded" once
   * durable; "refused" if the actor or key is no longer active; "unavailable" if it could not be
   * logged (then the caller must not hand out the token either).
   */
  async recordToken(token: TokenRecord): Promise<TokenRecording> {
    if (this.unavailable) return "unavailable";
    if (this.shared !== undefined) return this.shared.submitToken(token);
    let durable: Promise<JournalPosition>;
    try {
      const command = { type: "token.issue" as const, meta: { actorId: token.actorId, atMs: this.fold.stamp(this.clock) }, args: token };
      const decision = decide(this.fold.state, command);
      if (!decision.accepted) return "refused";
      durable = this.stage(encodeIdentityFrame({ v: IDENTITY_FRAME_VERSION, c: command, e: decision.events }), undefined);
      for (const event of decision.events) evolve(this.fold.state, event);
      this.fold.sweepExpiredTokens(command.meta.atMs);
    } catch {
      return "unavailable";
    }
    try {
      await durable;
      return "recorded";
    } catch {
      return "unavailable";
    }
  }

  /** Appends whatever is staged (resolving its promises) and closes the journal. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    if (this.shared !== undefined) {
      await this.shared.close();
      this.closed = true;
      return;
    }
    this.closed = true;
    if (this.flushHandle !== undefined) clearImmediate(this.flushHandle);
    this.startFlush();
    while (this.inFlight !== undefined) await this.inFlight;
    await this.journal.close();
  }

  // -------------------------------------------------------------------------------------------
  // Internals.
  // -------------------------------------------------------------------------------------------

  private async replyAtLocation(owner: number | "identity", position: number): Promise<SharedCommandReply> {
    // One (actor, commandId) maps to one fingerprint, and fingerprints include the operation, so a
    // replay of an identity operation can only point into the identity log.
    assert(owner === "identity", "identity command replay located in another owner's log");
    if (this.shared !== undefined) {
      try {
        return await this.shared.replyAt(position);
      } catch {
        // The entry is in the shared log but the log cannot be read now: the client may retry.
        return REPLY_UNREADABLE;
      }
    }
    try {
      return await this.replyAt(position);
    } catch {
      return INTERNAL_ERROR;
    }
  }

  private permissionProblem(actorId: string, operation: IdentityRequest["operation"], args: unknown): Rejection | undefined {
    switch (operation) {
      case "identity.provision":
      case "actor.disable":
      case "principal.disable":
      case "key.revoke":
        return this.isOperator(actorId) ? undefined : { code: "forbidden", message: "only operator actors may manage identities" };
      case "delegation.issue":
      case "delegation.revoke":
        // Delegation management cannot be delegated (spec §5.5): the actor must be the principal.
        return (args as { principalId: string }).principalId === actorId
          ? undefined
          : { code: "forbidden", message: "only the principal itself can manage its delegations" };
    }
  }

  /** Stages an entry in this turn's batch; resolves with its position once the batch is durable. */
  private stage(payload: Uint8Array, key: Batch["keys"][number]): Promise<JournalPosition> {
    let batch = this.batch;
    if (batch === undefined) {
      let resolve!: (positions: JournalPosition[]) => void;
      let reject!: (error: unknown) => void;
      const durable = new Promise<JournalPosition[]>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      // A batch nobody awaits yet must not report an unhandled rejection; its stagers see it.
      durable.catch(() => undefined);
      batch = { payloads: [], keys: [], durable, resolve, reject };
      this.batch = batch;
      // Staged in this turn: appended after it, unless an append is in flight (then right after that one).
      if (this.inFlight === undefined) this.flushHandle = setImmediate(() => this.startFlush());
    }
    const index = batch.payloads.length;
    batch.payloads.push(payload);
    batch.keys.push(key);
    return batch.durable.then((positions) => positions[index] as JournalPosition);
  }

  /** Appends what is staged, unless an append is in flight; what is staged meanwhile goes next. */
  private startFlush(): void {
    this.flushHandle = undefined;
    const batch = this.batch;
    if (this.inFlight !== undefined || batch === undefined) return;
    this.batch = undefined;
    this.inFlight = this.flush(batch).finally(() => {
      this.inFlight = undefined;
      this.startFlush();
    });
  }

  /** One append for the whole batch, then its entries' keys and promises; a snapshot when due. */
  private async flush(batch: Batch): Promise<void> {
    if (this.failure !== undefined) {
      batch.reject(this.failure);
      return;
    }
    let positions: JournalPosition[];
    try {
      positions = await this.journal.append(batch.payloads);
    } catch (error) {
      this.failure = error;
      batch.reject(error);
      return;
    }
    this.commits += 1;
    this.framesWritten += positions.length;
    batch.keys.forEach((key, i) => {
      if (key !== undefined) this.fold.commands.push([key[0], key[1], key[2], positions[i] as JournalPosition]);
    });
    batch.resolve(positions);
    this.framesSinceSnapshot += positions.length;
    // The state is exactly the journal's only while nothing newer is staged.
    if (this.framesSinceSnapshot >= this.snapshotEveryCommands && this.batch === undefined) await this.writeSnapshot();
  }

  /** Runs right after an append, with nothing staged, so the state is exactly the journal up to its last sequence. */
  private async writeSnapshot(): Promise<void> {
    this.framesSinceSnapshot = 0;
    try {
      await this.journal.writeSnapshot(this.fold.snapshot(), SNAPSHOTS_KEPT);
      this.snapshotsWritten++;
      this.lastSnapshotError = null;
    } catch (error) {
      this.lastSnapshotError = error instanceof Error ? error.message : String(error);
    }
  }
}

function snapshotEvery(options: IdentityStoreOptions): number {
  const every = options.snapshotEveryCommands ?? DEFAULT_SNAPSHOT_EVERY_COMMANDS;
  assert(Number.isSafeInteger(every) && every >= 1, "snapshotEveryCommands must be a positive integer");
  return every;
}

/** A request's static checks and its normalized arguments (what its idempotency fingerprint is of). */
export function prepareRequest(request: IdentityRequest): Prepared<unknown> {
  switch (request.operation) {
    case "identity.provision":
      return prepareProvision(request.body);
    case "delegation.issue":
      return prepareIssueDelegation(request.body);
    case "delegation.revoke":
      return prepareRevokeDelegation(request.delegationId, request.body);
    case "actor.disable":
      return prepareSingleId(request.body.commandId, "actorId", request.body.actorId);
    case "principal.disable":
      return prepareSingleId(request.body.commandId, "principalId", request.body.principalId);
    case "key.revoke":
      return prepareSingleId(request.body.commandId, "keyId", request.body.keyId);
  }
}

async function recover(journal: Journal): Promise<{ fold: IdentityFold; appliedSequence: number; report: IdentityRecoveryReport }> {
  let fold = IdentityFold.empty();
  let appliedSequence = 0;
  let snapshotLsn: number | null = null;
  const snapshot = journal.snapshot;
  if (snapshot !== undefined) {
    fold = IdentityFold.fromSnapshot(snapshot.payload);
    appliedSequence = snapshot.sequence;
    snapshotLsn = snapshot.sequence;
  }
  let framesReplayed = 0;
  await journal.read(appliedSequence, (journalEntry) => {
    fold.replay(decodeIdentityFrame(journalEntry.payload), journalEntry.position);
    appliedSequence = journalEntry.sequence;
    framesReplayed++;
  });
  return {
    fold,
    appliedSequence,
    report: {
      log: journal.recovery,
      snapshotLsn,
      snapshotIgnored: journal.recovery.snapshotIgnored,
      framesReplayed,
      commandsRestored: fold.commands.length,
    },
  };
}
