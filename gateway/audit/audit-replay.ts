/**
 * Audit replay (the user's third use case): re-run every logged command of every shard through the
 * engine, from the raw segments only (snapshots are ignored), and produce each market's record and
 * record hash. `verifyDataDir` additionally checks every CRC and the hash chain, and compares the
 * replayed state with the newest snapshot of each shard, reporting the first divergence.
 *
 * Run it on a stopped service or a copy of its data directory: opening a log truncates a torn tail.
 */
import { existsSync, readdirSync } from "node:fs";
import * as path from "node:path";
import { isDeepStrictEqual } from "node:util";
import { applyCommand, marketIdOfCommand } from "../../engine/handle-command.js";
import { buildMarketRecord } from "../../engine/record.js";
import { commitmentsOf, type MarketAggregate } from "../../engine/state.js";
import type { Command } from "../../engine/types/command.js";
import type { MarketRecord } from "../../engine/types/record.js";
import { LogCorruptError, SegmentLog, SnapshotStore } from "../../storage/index.js";
import { decodeLoggedCommand } from "../runtime/logged-command.js";
import { decodeShardSnapshot, type ShardMarket } from "../runtime/shard-snapshot.js";

export interface AuditProgress {
  /** Frames processed so far, across shards. */
  done: number;
  total: number;
}

export interface AuditOptions {
  onProgress?: (progress: AuditProgress) => void;
}

export interface MarketAudit {
  marketId: string;
  shard: number;
  commands: number;
  recordHash: string;
  stateReconstructed: boolean;
}

export interface ReplayResult {
  shards: number;
  commands: number;
  markets: MarketAudit[];
  elapsedMs: number;
  commandsPerSecond: number;
}

interface ReplayedShard {
  index: number;
  dir: string;
  log: SegmentLog;
  markets: Map<string, ShardMarket>;
}

export function shardDirectories(dataDir: string): Array<{ index: number; dir: string }> {
  const root = path.join(dataDir, "shards");
  if (!existsSync(root)) throw new Error(`${dataDir} holds no shards/ directory: not a market-service data directory`);
  return readdirSync(root)
    .filter((name) => /^\d{2,3}$/.test(name))
    .map((name) => ({ index: Number(name), dir: path.join(root, name) }))
    .sort((a, b) => a.index - b.index);
}

/** Apply every frame of a shard's log from the start; `visit` sees each frame after it is applied. */
function replayShard(
  index: number,
  dir: string,
  progress: { done: number; total: number; report: () => void },
  visit?: (lsn: number, chain: () => Buffer, markets: Map<string, ShardMarket>) => void,
  openedLog?: SegmentLog,
): ReplayedShard {
  const log = openedLog ?? SegmentLog.open({ dir });
  const markets = new Map<string, ShardMarket>();
  for (const frame of log.frames(0, { verify: "none" })) {
    const { c: command } = decodeLoggedCommand(frame.payload);
    const marketId = marketIdOfCommand(command);
    const entry = marketId === undefined ? undefined : markets.get(marketId);
    const applied = applyCommand(entry?.agg, command);
    if (applied.recordSequence !== undefined) {
      let owner = entry;
      if (owner === undefined) {
        if (applied.aggregate === undefined) throw new Error("an accepted command leaves a market");
        owner = { agg: applied.aggregate, positions: [] };
        markets.set(applied.aggregate.market.id, owner);
      }
      owner.positions.push(frame.position);
    }
    visit?.(frame.lsn, () => frame.chain, markets);
    progress.done += 1;
    if ((progress.done & 0x3fff) === 0) progress.report();
  }
  return { index, dir, log, markets };
}

function commandsOf(log: SegmentLog, positions: readonly number[]): Command[] {
  return positions.map((position) => decodeLoggedCommand(log.readAt(position).payload).c);
}

/** Frames to process, for the progress bar only; a log that will not open counts as 0 (the run reports it). */
function totalFrames(dataDir: string): number {
  let total = 0;
  for (const { dir } of shardDirectories(dataDir)) {
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

function progressOf(dataDir: string, options: AuditOptions) {
  const total = options.onProgress === undefined ? 0 : totalFrames(dataDir);
  const state = { done: 0, total, report: () => options.onProgress?.({ done: state.done, total }) };
  return state;
}

/** Replay every shard's raw log and compute every market's record hash. */
export function replayDataDir(dataDir: string, options: AuditOptions = {}): ReplayResult {
  const startedMs = performance.now();
  const progress = progressOf(dataDir, options);
  const markets: MarketAudit[] = [];
  let commands = 0;
  const shards = shardDirectories(dataDir);
  for (const { index, dir } of shards) {
    const replayed = replayShard(index, dir, progress);
    commands += replayed.log.lastLsn;
    try {
      for (const [marketId, entry] of replayed.markets) {
        const record = buildMarketRecord(commandsOf(replayed.log, entry.positions), entry.agg);
        markets.push({
          marketId,
          shard: index,
          commands: entry.positions.length,
          recordHash: record.integrity.recordHash,
          stateReconstructed: record.integrity.stateReconstructed,
        });
      }
    } finally {
      replayed.log.close();
    }
  }
  progress.report();
  markets.sort((a, b) => (a.marketId < b.marketId ? -1 : a.marketId > b.marketId ? 1 : 0));
  const elapsedMs = performance.now() - startedMs;
  return { shards: shards.length, commands, markets, elapsedMs: Math.round(elapsedMs), commandsPerSecond: Math.round(commands / Math.max(elapsedMs / 1000, 1e-9)) };
}

/** One market's full record, replayed from the raw log. */
export function replayMarketRecord(dataDir: string, marketId: string): MarketRecord | undefined {
  for (const { index, dir } of shardDirectories(dataDir)) {
    const replayed = replayShard(index, dir, { done: 0, total: 0, report: () => undefined });
    try {
      const entry = replayed.markets.get(marketId);
      if (entry !== undefined) return buildMarketRecord(commandsOf(replayed.log, entry.positions), entry.agg);
    } finally {
      replayed.log.close();
    }
  }
  return undefined;
}

export interface VerifyResult {
  ok: boolean;
  /** The first divergence found, naming shard, file/offset or market. */
  problem?: string;
  replay: ReplayResult;
  snapshotsCompared: number;
}

/** The part of an aggregate a snapshot must reproduce exactly. */
function comparable(entry: ShardMarket): unknown {
  const agg: MarketAggregate = entry.agg;
  return {
    market: agg.market,
    commitments: commitmentsOf(agg),
    bids: agg.bids,
    lastResolution: agg.lastResolution ?? null,
    commandCount: agg.commandCount,
    eventCount: agg.eventCount,
    positions: entry.positions,
  };
}

/**
 * Everything `replay` does, plus: every frame's CRC and the hash chain (and the segment headers),
 * each shard's newest snapshot against the replayed state at the snapshot's lsn (including its
 * recorded chain head), and every market's record reconstructing.
 */
export function verifyDataDir(dataDir: string, options: AuditOptions = {}): VerifyResult {
  const startedMs = performance.now();
  const progress = progressOf(dataDir, options);
  let snapshotsCompared = 0;
  const markets: MarketAudit[] = [];
  let commands = 0;
  const shards = shardDirectories(dataDir);
  const fail = (problem: string): VerifyResult => ({
    ok: false,
    problem,
    replay: { shards: shards.length, commands, markets, elapsedMs: Math.round(performance.now() - startedMs), commandsPerSecond: 0 },
    snapshotsCompared,
  });
  for (const { index, dir } of shards) {
    const snapshotStore = new SnapshotStore({ dir: path.join(dir, "snapshots") });
    const loaded = snapshotStore.loadNewestValid();
    if (loaded.invalid.length > 0) {
      const bad = loaded.invalid[0];
      return fail(`shard ${index}: snapshot ${bad?.filePath ?? "?"} is invalid (${bad?.reason ?? "?"})`);
    }
    const snapshot = loaded.snapshot;
    let snapshotProblem: string | undefined;
    let log: SegmentLog;
    try {
      log = SegmentLog.open({ dir });
    } catch (error) {
      if (error instanceof LogCorruptError) return fail(`shard ${index}: ${error.message}`);
      throw error;
    }
    // Every CRC, the hash chain and the segment headers first: a damaged frame is reported with its
    // file and offset, not as whatever its payload decodes to.
    const verified = log.verify();
    if (!verified.ok) {
      log.close();
      return fail(`shard ${index}: ${verified.error.message}`);
    }
    let replayed: ReplayedShard;
    try {
      replayed = replayShard(index, dir, progress, (lsn, chain, live) => {
        if (snapshot === null || lsn !== snapshot.lsn || snapshotProblem !== undefined) return;
        if (!chain().equals(snapshot.chainHead)) {
          snapshotProblem = `shard ${index}: snapshot at lsn ${lsn} records a chain head that differs from the log's`;
          return;
        }
        const decoded = decodeShardSnapshot(snapshot.payload);
        const inSnapshot = new Map(decoded.markets.map((m) => [m.agg.market.id, m]));
        if (inSnapshot.size !== live.size) {
          snapshotProblem = `shard ${index}: snapshot at lsn ${lsn} holds ${inSnapshot.size} markets, the log ${live.size}`;
          return;
        }
        for (const [marketId, entry] of live) {
          const stored = inSnapshot.get(marketId);
          if (stored === undefined || !isDeepStrictEqual(comparable(stored), comparable(entry))) {
            snapshotProblem = `shard ${index}: market ${JSON.stringify(marketId)} in the snapshot at lsn ${lsn} differs from the replayed log`;
            return;
          }
        }
        snapshotsCompared += 1;
      }, log);
    } catch (error) {
      log.close();
      throw error;
    }
    try {
      if (snapshotProblem !== undefined) return fail(snapshotProblem);
      if (snapshot !== null && snapshot.lsn > replayed.log.lastLsn) {
        return fail(`shard ${index}: snapshot lsn ${snapshot.lsn} is beyond the log's last lsn ${replayed.log.lastLsn}`);
      }
      commands += replayed.log.lastLsn;
      for (const [marketId, entry] of replayed.markets) {
        const record = buildMarketRecord(commandsOf(replayed.log, entry.positions), entry.agg);
        markets.push({ marketId, shard: index, commands: entry.positions.length, recordHash: record.integrity.recordHash, stateReconstructed: record.integrity.stateReconstructed });
        if (!record.integrity.stateReconstructed) return fail(`shard ${index}: market ${JSON.stringify(marketId)} does not reconstruct from its events`);
      }
    } finally {
      replayed.log.close();
    }
  }
  progress.report();
  markets.sort((a, b) => (a.marketId < b.marketId ? -1 : a.marketId > b.marketId ? 1 : 0));
  const elapsedMs = performance.now() - startedMs;
  return {
    ok: true,
    replay: { shards: shards.length, commands, markets, elapsedMs: Math.round(elapsedMs), commandsPerSecond: Math.round(commands / Math.max(elapsedMs / 1000, 1e-9)) },
    snapshotsCompared,
  };
}
