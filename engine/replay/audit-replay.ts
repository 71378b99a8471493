/**
 * Audit replay (the user's third use case): re-run every logged command of every shard through the
 * engine, from the raw segments only (snapshots are ignored), and produce each market's record and
 * record hash. `verifyDataDir` additionally checks every CRC and the hash chain, and compares the
 * replayed state with the newest snapshot of each shard, reporting the first divergence.
 *
 * Shards are independent logs, so each is audited on its own (`auditShard`), and with `threads` > 1
 * on the worker pool in parallel (parallel-audit.ts); the results are merged in shard order, so the
 * output and the divergence reported do not depend on the thread count.
 *
 * Run it on a stopped service or a copy of its data directory: opening a log truncates a torn tail.
 */
import { existsSync, readdirSync } from "node:fs";
import * as path from "node:path";
import { buildMarketRecord } from "../record.js";
import type { Command } from "../rules/types/command.js";
import type { MarketRecord } from "@market-service/client/wire";
import { LogCorruptError, SegmentLog, SnapshotStore } from "../../storage/index.js";
import { decodeLoggedCommand } from "../log/logged-command.js";
import { decodeLogEntry } from "../log/logged-head.js";
import { HeadAudit, headChecksOf, summarizeHeads, type SignedHeadsSummary } from "../audit/heads/head-audit.js";
import type { HeadInterval } from "../audit/heads/unsigned-tail.js";
import type { PublicKeyEntry } from "../audit/signing/head-keys.js";
import { shardLogId, shardOfMarket } from "../runtime/shard-routing.js";
import { LogFold, type ShardMarket } from "../log-fold.js";
import { auditMarket, notReconstructed, snapshotDivergence } from "./market-audit.js";
import { auditShardsOnWorkers } from "./parallel-audit.js";
import type { AuditMode, MarketAudit, ShardAudit, ShardAuditWork } from "../pool/shard-audit.js";

export type { AuditMode, MarketAudit, ShardAudit, ShardAuditWork } from "../pool/shard-audit.js";
import { DEFAULT_KEPT_PAYLOAD_BYTES, KeptPayloads } from "./kept-payloads.js";
import { snapshotPayloadOf } from "../journal/file-journal.js";

export interface AuditProgress {
  /** Frames processed so far, across shards. */
  done: number;
  total: number;
}

export interface AuditOptions {
  onProgress?: (progress: AuditProgress) => void;
  /**
   * Worker threads auditing shards in parallel (at most one per shard). 1 (the default) audits in
   * this thread; the CLI passes the machine's available parallelism.
   */
  threads?: number;
  /**
   * Payload bytes each shard's audit keeps from its first pass for building the records
   * (default 256 MiB, see KeptPayloads); commands beyond it are read from the log again.
   */
  keptPayloadBytes?: number;
  /**
   * verify: the service's public keys (keyId → raw 32 bytes, engine/audit/signing/). With them every
   * signed head's signature is checked, and a shard log with entries but no signed head fails.
   */
  publicKeys?: PublicKeyEntry[];
  /** verify with keys: when the service records heads (what a crash leaves after the last one); default the service's default. */
  headInterval?: HeadInterval;
}

export interface ReplayResult {
  shards: number;
  commands: number;
  markets: MarketAudit[];
  elapsedMs: number;
  commandsPerSecond: number;
}

export interface VerifyResult {
  ok: boolean;
  /** The first divergence found, naming shard, file/offset or market. */
  problem?: string;
  replay: ReplayResult;
  snapshotsCompared: number;
  /** Signed head entries checked, entries after each shard's last head, and what was checked of them. */
  signedHeads: SignedHeadsSummary;
}


interface ReplayedShard {
  log: SegmentLog;
  markets: Map<string, ShardMarket>;
  /** Payloads kept from the pass (when asked to), and where each market's are, in record order. */
  kept?: { payloads: KeptPayloads; offsets: Map<string, number[]> };
}

/** Frames between two progress reports. */
const PROGRESS_EVERY_FRAMES = 0x4000;

export function shardDirectories(dataDir: string): Array<{ index: number; dir: string }> {
  const root = path.join(dataDir, "shards");
  if (!existsSync(root)) throw new Error(`${dataDir} holds no shards/ directory: not a market-service data directory`);
  return readdirSync(root)
    .filter((name) => /^\d{2,3}$/.test(name))
    .map((name) => ({ index: Number(name), dir: path.join(root, name) }))
    .sort((a, b) => a.index - b.index);
}

/**
 * Apply every frame of a shard's log from the start; `visit` sees each frame after it is applied.
 * `onFrames(n)` reports progress: n more frames done. With `keep`, the payloads of the frames
 * that markets' records hold are kept (up to its budget) for building the records afterwards.
 */
function replayShard(
  log: SegmentLog,
  heads: HeadAudit | undefined,
  onFrames: (frames: number) => void,
  visit?: (lsn: number, chain: () => Buffer, markets: Map<string, ShardMarket>) => void,
  keep?: KeptPayloads,
): ReplayedShard {
  const fold = new LogFold();
  const markets = fold.markets;
  const offsets = new Map<string, number[]>();
  let unreported = 0;
  for (const frame of log.frames(0, { verify: "none" })) {
    const entry = decodeLogEntry(frame.payload);
    heads?.entry(frame.lsn, frame.payload, entry);
    const owner = entry.kind === "head" ? undefined : fold.apply(entry.logged.c, frame.position).market;
    if (owner !== undefined) {
      const offset = keep?.keep(frame.payload) ?? -1;
      if (offset >= 0) {
        const id = owner.agg.market.id;
        const kept = offsets.get(id);
        if (kept === undefined) offsets.set(id, [offset]);
        else kept.push(offset);
      }
    }
    visit?.(frame.lsn, () => frame.chain, markets);
    unreported += 1;
    if (unreported === PROGRESS_EVERY_FRAMES) {
      onFrames(unreported);
      unreported = 0;
    }
  }
  if (unreported > 0) onFrames(unreported);
  return keep === undefined ? { log, markets } : { log, markets, kept: { payloads: keep, offsets } };
}

/** A market's commands: those kept by the pass (a prefix, see KeptPayloads), the rest read from the log. */
function commandsOf(replayed: ReplayedShard, marketId: string, positions: readonly number[]): Command[] {
  const commands: Command[] = [];
  const kept = replayed.kept;
  if (kept !== undefined) for (const offset of kept.offsets.get(marketId) ?? []) commands.push(decodeLoggedCommand(kept.payloads.payloadAt(offset)).c);
  if (commands.length < positions.length) {
    replayed.log.readManyAt(positions.slice(commands.length), (frame) => commands.push(decodeLoggedCommand(frame.payload).c));
  }
  return commands;
}

/** Every market's record (rebuilt from its commands) as an audit line; stops at the first market that does not reconstruct when `stopIfNotReconstructed`. */
function auditMarkets(index: number, replayed: ReplayedShard, stopIfNotReconstructed: boolean): { markets: MarketAudit[]; problem?: string } {
  const markets: MarketAudit[] = [];
  for (const [marketId, entry] of replayed.markets) {
    const audit = auditMarket(index, marketId, commandsOf(replayed, marketId, entry.positions), entry);
    markets.push(audit);
    if (stopIfNotReconstructed && !audit.stateReconstructed) return { markets, problem: notReconstructed(`shard ${index}`, marketId) };
  }
  return { markets };
}

/** replay: every market's record hash. A log that does not open throws (LogCorruptError). */
function replayOneShard(index: number, dir: string, onFrames: (frames: number) => void, keptPayloadBytes: number): ShardAudit {
  const headAudit = new HeadAudit(shardLogId(index), undefined);
  const replayed = replayShard(SegmentLog.open({ dir }), headAudit, onFrames, undefined, new KeptPayloads(keptPayloadBytes));
  try {
    const { problem: _unchecked, ...heads } = headAudit.report();
    return { index, commands: replayed.log.lastLsn - heads.heads, markets: auditMarkets(index, replayed, false).markets, snapshotsCompared: 0, ...heads };
  } finally {
    replayed.log.close();
  }
}

/**
 * verify: every CRC, the hash chain and the segment headers; the newest snapshot against the
 * replayed state at the snapshot's lsn (including its recorded chain head); every market's record
 * reconstructing. A divergence is returned as `problem`, not thrown.
 */
function verifyOneShard(index: number, dir: string, onFrames: (frames: number) => void, work: ShardAuditWork): ShardAudit {
  const failed = (problem: string): ShardAudit => ({ index, commands: 0, markets: [], snapshotsCompared: 0, heads: 0, uncoveredEntries: 0, headless: false, acceptedTails: [], problem });
  const loaded = new SnapshotStore({ dir: path.join(dir, "snapshots") }).loadNewestValid();
  if (loaded.invalid.length > 0) {
    const bad = loaded.invalid[0];
    return failed(`shard ${index}: snapshot ${bad?.filePath ?? "?"} is invalid (${bad?.reason ?? "?"})`);
  }
  const snapshot = loaded.snapshot;
  let log: SegmentLog;
  try {
    log = SegmentLog.open({ dir });
  } catch (error) {
    if (error instanceof LogCorruptError) return failed(`shard ${index}: ${error.message}`);
    throw error;
  }
  try {
    // Every CRC, the hash chain and the segment headers first: a damaged frame is reported with its
    // file and offset, not as whatever its payload decodes to.
    const verified = log.verify();
    if (!verified.ok) return failed(`shard ${index}: ${verified.error.message}`);
    let snapshotProblem: string | undefined;
    let snapshotsCompared = 0;
    const headAudit = new HeadAudit(shardLogId(index), headChecksOf(work.publicKeys, work.headInterval));
    const replayed = replayShard(log, headAudit, onFrames, (lsn, chain, live) => {
      if (snapshot === null || lsn !== snapshot.lsn || snapshotProblem !== undefined) return;
      if (!chain().equals(snapshot.chainHead)) {
        snapshotProblem = `shard ${index}: snapshot at lsn ${lsn} records a chain head that differs from the log's`;
        return;
      }
      const compared = snapshotDivergence(`shard ${index}`, `lsn ${lsn}`, snapshotPayloadOf(snapshot.payload), live);
      snapshotProblem = compared.problem;
      if (compared.compared && compared.problem === undefined) snapshotsCompared += 1;
    }, new KeptPayloads(work.keptPayloadBytes));
    if (snapshotProblem !== undefined) return failed(snapshotProblem);
    const { problem: headProblem, ...heads } = headAudit.report();
    if (headProblem !== undefined) return failed(headProblem);
    if (snapshot !== null && snapshot.lsn > log.lastLsn) {
      return failed(`shard ${index}: snapshot lsn ${snapshot.lsn} is beyond the log's last lsn ${log.lastLsn}`);
    }
    const audited = auditMarkets(index, replayed, true);
    return { index, commands: log.lastLsn - heads.heads, markets: audited.markets, snapshotsCompared, ...heads, ...(audited.problem === undefined ? {} : { problem: audited.problem }) };
  } finally {
    log.close();
  }
}

/** Audit one shard in this thread (the worker pool runs it on its threads: engine/pool-worker/pool-tasks.ts). */
export function auditShard(index: number, dir: string, work: ShardAuditWork, onFrames: (frames: number) => void): ShardAudit {
  return work.mode === "replay"
    ? replayOneShard(index, dir, onFrames, work.keptPayloadBytes)
    : verifyOneShard(index, dir, onFrames, work);
}

/** Frames to process, for the progress bar only; a log that will not open counts as 0 (the run reports it). */
function totalFrames(shards: ReadonlyArray<{ dir: string }>): number {
  let total = 0;
  for (const { dir } of shards) {
    try {
      const log = SegmentLog.open({ dir });
      total += log.lastLsn;
      log.close();
    } catch {
      // replay/verify open the log again and report the problem properly
    }
  }
  return total;
}

/** Every shard audited (in this thread or on workers), in shard order, and how many shards there are. */
async function auditShards(dataDir: string, mode: AuditMode, options: AuditOptions): Promise<{ shardCount: number; audits: ShardAudit[] }> {
  const shards = shardDirectories(dataDir);
  const threads = Math.min(options.threads ?? 1, shards.length);
  const onProgress = options.onProgress;
  const total = onProgress === undefined ? 0 : totalFrames(shards);
  let done = 0;
  const onFrames = (frames: number): void => {
    done += frames;
    onProgress?.({ done, total });
  };
  const work: ShardAuditWork = {
    mode,
    keptPayloadBytes: options.keptPayloadBytes ?? DEFAULT_KEPT_PAYLOAD_BYTES,
    ...(options.publicKeys === undefined ? {} : { publicKeys: options.publicKeys }),
    ...(options.headInterval === undefined ? {} : { headInterval: options.headInterval }),
  };
  const audits: ShardAudit[] = [];
  if (threads > 1) {
    audits.push(...(await auditShardsOnWorkers(shards, work, threads, onFrames)));
  } else {
    for (const { index, dir } of shards) {
      const audit = auditShard(index, dir, work, onFrames);
      audits.push(audit);
      if (audit.problem !== undefined) break; // verify stops at the first divergence
    }
  }
  onProgress?.({ done, total });
  return { shardCount: shards.length, audits };
}

function byMarketId(a: MarketAudit, b: MarketAudit): number {
  return a.marketId < b.marketId ? -1 : a.marketId > b.marketId ? 1 : 0;
}

function replayResultOf(shardCount: number, audits: readonly ShardAudit[], startedMs: number, rate: boolean): ReplayResult {
  const commands = audits.reduce((sum, audit) => sum + audit.commands, 0);
  return replayResult(shardCount, commands, audits.flatMap((audit) => audit.markets), startedMs, rate);
}

/** A replay's result: what it covered, and (`rate`) how fast it went. Shared by the data directory's audit and a stream's. */
export function replayResult(shards: number, commands: number, markets: MarketAudit[], startedMs: number, rate: boolean): ReplayResult {
  const elapsedMs = performance.now() - startedMs;
  return {
    shards,
    commands,
    markets,
    elapsedMs: Math.round(elapsedMs),
    commandsPerSecond: rate ? Math.round(commands / Math.max(elapsedMs / 1000, 1e-9)) : 0,
  };
}

/** Replay every shard's raw log and compute every market's record hash. */
export async function replayDataDir(dataDir: string, options: AuditOptions = {}): Promise<ReplayResult> {
  const startedMs = performance.now();
  const { shardCount, audits } = await auditShards(dataDir, "replay", options);
  const result = replayResultOf(shardCount, audits, startedMs, true);
  result.markets.sort(byMarketId);
  return result;
}

/**
 * Everything `replay` does, plus: every frame's CRC and the hash chain (and the segment headers),
 * each shard's newest snapshot against the replayed state at the snapshot's lsn (including its
 * recorded chain head), and every market's record reconstructing. The problem reported is the
 * lowest-numbered shard's first divergence, whatever the thread count.
 */
export async function verifyDataDir(dataDir: string, options: AuditOptions = {}): Promise<VerifyResult> {
  const startedMs = performance.now();
  const { shardCount, audits } = await auditShards(dataDir, "verify", options);
  const failedAt = audits.findIndex((audit) => audit.problem !== undefined);
  // Up to the first divergence: what a sequential run would have done before stopping there.
  const counted = failedAt >= 0 ? audits.slice(0, failedAt + 1) : audits;
  const snapshotsCompared = counted.reduce((sum, audit) => sum + audit.snapshotsCompared, 0);
  const signedHeads = summarizeHeads(counted, options.publicKeys !== undefined);
  if (failedAt >= 0) {
    return { ok: false, problem: counted[failedAt]?.problem ?? "", replay: replayResultOf(shardCount, counted, startedMs, false), snapshotsCompared, signedHeads };
  }
  const replay = replayResultOf(shardCount, audits, startedMs, true);
  replay.markets.sort(byMarketId);
  return { ok: true, replay, snapshotsCompared, signedHeads };
}

/**
 * One market's full record, replayed from the raw log. The shard the service places the market on
 * (`hash(marketId) mod shards`) is replayed first, so usually only that one is read; the others
 * follow, so a market found anywhere else is still found.
 */
export function replayMarketRecord(dataDir: string, marketId: string): MarketRecord | undefined {
  const shards = shardDirectories(dataDir);
  const contiguous = shards.every((shard, position) => shard.index === position);
  const owner = contiguous && shards.length > 0 ? shardOfMarket(marketId, shards.length) : 0;
  const ownerFirst = [...shards.filter((shard) => shard.index === owner), ...shards.filter((shard) => shard.index !== owner)];
  for (const { dir } of ownerFirst) {
    const replayed = replayShard(SegmentLog.open({ dir }), undefined, () => undefined);
    try {
      const entry = replayed.markets.get(marketId);
      if (entry !== undefined) return buildMarketRecord(commandsOf(replayed, marketId, entry.positions), entry.agg);
    } finally {
      replayed.log.close();
    }
  }
  return undefined;
}
