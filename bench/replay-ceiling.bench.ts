/**
 * P4's ceiling: the least a replay of a claim storm's log must do, written as tightly as this
 * machine's JavaScript allows, beside the engine's own replay in the same run.
 * Run: `npm run bench:replay-ceiling`
 *
 *   node --import tsx bench/replay-ceiling.bench.ts [--commands 302000] [--markets 1000] [--capacity 4000000] [--rounds 5]
 *
 * `--markets 1 --capacity 1000` is a claim storm's own log: one market, nearly every claim refused.
 * Writes bench/results/<date>-replay-ceiling-<markets>m-<capacity>c.json.
 *
 * Like `bench:ceiling` for P1 (decision I16), this answers a question about the target rather than
 * about our code: can ANY single-threaded JavaScript replay reach P4's 1M commands/s on this
 * machine? The log is written by the real ShardCore (bench/claim-log.ts, the service's own frame
 * layout); then each round times, per frame:
 *
 *  - engine: read + `decodeLoggedCommand` + `applyCommand` (what `bench:replay-frames` calls its
 *    last step; the shard's open adds its own loop, idempotency entries and the last segment's
 *    CRCs on top, see `bench:recovery`);
 *  - bound: walk: the segment files read in 4 MiB chunks and each frame's header read in place,
 *    nothing else (what any replay pays before it looks at a payload);
 *  - bound: apply: the walk, and each claim's constant bytes compared with the service's layout,
 *    its market id and principal id left as bytes, the claim decided (market found by its id
 *    bytes, published, not the creator's, principal not already holding, capacity left) and folded
 *    (counters, version, a row in a typed array, the principal's bytes in an arena, an
 *    open-addressing principal index over those bytes, the record position). No object and no
 *    string per claim. Market creation and publication frames (two per market) go through msgpackr;
 *  - bound: apply + CRC: the same with every frame's CRC-32C checked (native @node-rs/crc32), as a
 *    replay of a log nobody vouches for must (the shard's open checks the last segment's).
 *
 * The bound leaves out what the engine's replay also does and a real replay needs: events and
 * generated ids, every other command type and rule, idempotency entries, assertions. So it is an
 * upper bound on speed, not a design. After each bound round, every market's allocation, record
 * length, version and event count are compared with the engine's: the bound must reach the same
 * decisions, or the run fails.
 */
import { closeSync, mkdirSync, openSync, readdirSync, readSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, release } from "node:os";
import * as path from "node:path";
import { Packr } from "msgpackr";
import type { MarketAggregate } from "../engine/index.js";
import type { DirectClaimState } from "../engine/rules/types/market.js";
import { ManualClock } from "../gateway/clock.js";
import { decodeLoggedCommand, encodeLoggedCommand } from "../gateway/runtime/logged-command.js";
import { crc32c, FRAME_HEADER_BYTES, SEGMENT_HEADER_BYTES, SegmentLog } from "../storage/index.js";
import { SEGMENT_HEADER_BASE_OFFSET } from "../storage/segment-file.js";
import { numberArg } from "./args.js";
import { buildShard, claim, replayThroughEngine, T0 } from "./claim-log.js";
import { percentile } from "./percentile.js";
import { freshResultStem, RESULTS_DIR } from "./result-stem.js";

const COMMANDS = numberArg("commands", 302_000);
const MARKETS = numberArg("markets", 1_000);
const CAPACITY = numberArg("capacity", 4_000_000);
const ROUNDS = numberArg("rounds", 5);
const DIR = path.join(import.meta.dirname, "..", ".tmp", "bench-replay-ceiling");
const CHUNK_BYTES = 4 * 1024 * 1024;

// ---------------------------------------------------------------------------------------------
// The claim layout, as the service writes it: everything before the fingerprint, between the
// fingerprint and the market id, and so on. Taken from a real encoded claim, so the bound compares
// exactly the bytes the service's encoder writes (the claim reader, decision I15, reads the same).

const packr = new Packr({ useRecords: false, moreTypes: false });
// Buffers throughout, as the frames are: one receiver kind keeps the byte compares monomorphic.
const enc = (value: unknown): Uint8Array => Buffer.from(packr.pack(value));
const concat = (...parts: Uint8Array[]): Uint8Array => Buffer.concat(parts);
/** The log's encoder writes every map header as map16 (msgpackr without variable map sizes). */
const map16 = (entries: number): Uint8Array => Buffer.of(0xde, 0, entries);
/** map(3) "v" 1 "f" */
const HEAD = concat(map16(3), enc("v"), Uint8Array.of(1), enc("f"));
/** "c" map(5) "type" "direct_claim.submit" "marketId" */
const AFTER_FINGERPRINT = concat(enc("c"), map16(5), enc("type"), enc("direct_claim.submit"), enc("marketId"));
/** "commandId" */
const BEFORE_COMMAND_ID = enc("commandId");
/** "identity" map(2) "principalId" */
const BEFORE_PRINCIPAL = concat(enc("identity"), map16(2), enc("principalId"));
const BEFORE_ACTOR = enc("actorId");
const BEFORE_OCCURRED_AT = enc("occurredAtMs");

{
  // The layout above must be the one the service writes (a changed literal in market-api.ts would
  // otherwise send every claim down the slow path and the bound would measure nothing).
  const command = claim(7, "market-7");
  const frame = encodeLoggedCommand({ v: 1, f: "AAAAAAAAAAAAAAAAAAAAAA", c: { ...command, occurredAtMs: T0 } });
  if (frame.indexOf(Buffer.from(AFTER_FINGERPRINT)) < 0 || frame.indexOf(Buffer.from(HEAD)) !== 0) {
    throw new Error("the service's claim layout changed: update bench/replay-ceiling.bench.ts");
  }
}

// ---------------------------------------------------------------------------------------------
// The bound's state: per market, counters and typed arrays.

function fnv(bytes: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i += 1) h = Math.imul(h ^ (bytes[i] as number), 0x01000193);
  return h | 0;
}

function sameBytes(a: Uint8Array, aStart: number, b: Uint8Array, bStart: number, length: number): boolean {
  for (let i = 0; i < length; i += 1) if (a[aStart + i] !== b[bStart + i]) return false;
  return true;
}

const ROW_FIELDS = 4;

class BoundMarket {
  published = false;
  version = 1;
  allocated = 0;
  eventCount = 1;
  updatedAtMs = 0;
  rows = 0;
  /**
   * Per commitment, side by side (one cache line, not three arrays): its principal's offset and
   * length in `arena`, and its creation time.
   */
  rowFields = new Float64Array(16 * ROW_FIELDS);
  arena: Uint8Array = Buffer.alloc(256);
  arenaUsed = 0;
  /** Open addressing: row + 1 per slot (0 = empty), then the key's hash. */
  slots = new Int32Array(64);
  slotMask = 31;
  /** Record positions: one per command the market's record holds, so also its record length. */
  positions = new Float64Array(16);
  positionCount = 0;

  constructor(
    readonly idBytes: Uint8Array,
    readonly capacity: number,
    readonly creator: Uint8Array,
  ) {}

  recordPosition(position: number): void {
    if (this.positionCount === this.positions.length) {
      const grown = new Float64Array(this.positions.length * 2);
      grown.set(this.positions);
      this.positions = grown;
    }
    this.positions[this.positionCount++] = position;
  }

  /** The principal's row + 1, or the negated free slot where it would go. */
  find(bytes: Uint8Array, start: number, length: number, hash: number): number {
    const slots = this.slots;
    const mask = this.slotMask;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const entry = slots[slot * 2] as number;
      if (entry === 0) return -slot - 1;
      if (slots[slot * 2 + 1] === hash) {
        const row = entry - 1;
        const fields = row * ROW_FIELDS;
        if (this.rowFields[fields + 1] === length && sameBytes(this.arena, this.rowFields[fields] as number, bytes, start, length)) return entry;
      }
    }
  }

  addRow(bytes: Uint8Array, start: number, length: number, hash: number, freeSlot: number, occurredAtMs: number): void {
    const row = this.rows;
    if ((row + 1) * ROW_FIELDS > this.rowFields.length) {
      const grown = new Float64Array(this.rowFields.length * 2);
      grown.set(this.rowFields);
      this.rowFields = grown;
    }
    if (this.arenaUsed + length > this.arena.length) {
      const grown = Buffer.alloc(Math.max(this.arena.length * 2, this.arenaUsed + length));
      grown.set(this.arena);
      this.arena = grown;
    }
    // A loop, not `set(subarray)`: ids are short and a view per claim costs more than the copy.
    const arena = this.arena;
    for (let i = 0, to = this.arenaUsed; i < length; i += 1, to += 1) arena[to] = bytes[start + i] as number;
    const fields = row * ROW_FIELDS;
    this.rowFields[fields] = this.arenaUsed;
    this.rowFields[fields + 1] = length;
    this.rowFields[fields + 2] = occurredAtMs;
    this.arenaUsed += length;
    this.rows = row + 1;
    this.slots[freeSlot * 2] = row + 1;
    this.slots[freeSlot * 2 + 1] = hash;
    if (this.rows * 2 > this.slotMask + 1) this.rehash();
  }

  private rehash(): void {
    const slotCount = (this.slotMask + 1) * 4;
    const slots = new Int32Array(slotCount * 2);
    const mask = slotCount - 1;
    const old = this.slots;
    for (let i = 0; i < old.length; i += 2) {
      const entry = old[i] as number;
      if (entry === 0) continue;
      const hash = old[i + 1] as number;
      let slot = hash & mask;
      while (slots[slot * 2] !== 0) slot = (slot + 1) & mask;
      slots[slot * 2] = entry;
      slots[slot * 2 + 1] = hash;
    }
    this.slots = slots;
    this.slotMask = mask;
  }
}

/** Markets by the hash of their id bytes (a list per hash, compared byte by byte). */
class BoundMarkets {
  readonly byHash = new Map<number, BoundMarket[]>();
  readonly all: BoundMarket[] = [];

  find(bytes: Uint8Array, start: number, length: number, hash: number): BoundMarket | undefined {
    const list = this.byHash.get(hash);
    if (list === undefined) return undefined;
    for (const market of list) {
      if (market.idBytes.length === length && sameBytes(market.idBytes, 0, bytes, start, length)) return market;
    }
    return undefined;
  }

  add(market: BoundMarket): void {
    const hash = fnv(market.idBytes, 0, market.idBytes.length);
    const list = this.byHash.get(hash);
    if (list === undefined) this.byHash.set(hash, [market]);
    else list.push(market);
    this.all.push(market);
  }
}

// ---------------------------------------------------------------------------------------------
// The bound's replay.

/** A fixstr or str8 at `at`: [start, end) of its bytes, or end = -1. Sets `strEnd` / returns start. */
let strEnd = -1;
function str(bytes: Uint8Array, at: number): number {
  const head = bytes[at] as number;
  if (head >= 0xa0 && head <= 0xbf) {
    strEnd = at + 1 + (head & 0x1f);
    return at + 1;
  }
  if (head === 0xd9) {
    strEnd = at + 2 + (bytes[at + 1] as number);
    return at + 2;
  }
  strEnd = -1;
  return -1;
}

/** A positive fixint, uint8/16/32 or float64 at `at` (sets `numEnd`), or NaN. */
let numEnd = -1;
function num(bytes: Buffer, at: number): number {
  const head = bytes[at] as number;
  if (head <= 0x7f) {
    numEnd = at + 1;
    return head;
  }
  switch (head) {
    case 0xcb:
      numEnd = at + 9;
      return bytes.readDoubleBE(at + 1);
    case 0xcc:
      numEnd = at + 2;
      return bytes[at + 1] as number;
    case 0xcd:
      numEnd = at + 3;
      return bytes.readUInt16BE(at + 1);
    case 0xce:
      numEnd = at + 5;
      return bytes.readUInt32BE(at + 1);
    default:
      return Number.NaN;
  }
}

function literalAt(bytes: Uint8Array, at: number, expected: Uint8Array): boolean {
  return sameBytes(bytes, at, expected, 0, expected.length);
}

interface Counts {
  frames: number;
  accepted: number;
  refused: number;
}

/** Decides and folds the claim whose payload is [p, end); false when the bytes are not a claim in the layout. */
function applyClaim(markets: BoundMarkets, bytes: Buffer, p: number, end: number, position: number, counts: Counts): boolean {
  if (!literalAt(bytes, p, HEAD)) return false;
  let at = str(bytes, p + HEAD.length); // fingerprint
  if (at < 0) return false;
  at = strEnd;
  if (!literalAt(bytes, at, AFTER_FINGERPRINT)) return false;
  const marketStart = str(bytes, at + AFTER_FINGERPRINT.length);
  if (marketStart < 0) return false;
  const marketEnd = strEnd;
  if (!literalAt(bytes, marketEnd, BEFORE_COMMAND_ID)) return false; // (a claim with expectedVersion is not in this log)
  if (str(bytes, marketEnd + BEFORE_COMMAND_ID.length) < 0) return false;
  at = strEnd;
  if (!literalAt(bytes, at, BEFORE_PRINCIPAL)) return false;
  const principalStart = str(bytes, at + BEFORE_PRINCIPAL.length);
  if (principalStart < 0) return false;
  const principalEnd = strEnd;
  if (!literalAt(bytes, principalEnd, BEFORE_ACTOR) || str(bytes, principalEnd + BEFORE_ACTOR.length) < 0) return false;
  at = strEnd;
  if (!literalAt(bytes, at, BEFORE_OCCURRED_AT)) return false;
  const occurredAtMs = num(bytes, at + BEFORE_OCCURRED_AT.length);
  if (Number.isNaN(occurredAtMs) || numEnd !== end) return false;

  const market = markets.find(bytes, marketStart, marketEnd - marketStart, fnv(bytes, marketStart, marketEnd));
  counts.frames += 1;
  if (market === undefined) {
    counts.refused += 1; // market_not_found: in no record
    return true;
  }
  market.recordPosition(position);
  const principalLength = principalEnd - principalStart;
  const creator = market.creator;
  const byCreator = creator.length === principalLength && sameBytes(creator, 0, bytes, principalStart, principalLength);
  const hash = fnv(bytes, principalStart, principalEnd);
  const found = market.find(bytes, principalStart, principalLength, hash);
  if (!market.published || byCreator || found > 0 || market.allocated === market.capacity) {
    counts.refused += 1;
    return true;
  }
  market.addRow(bytes, principalStart, principalLength, hash, -found - 1, occurredAtMs);
  market.allocated += 1;
  market.version += 1;
  market.eventCount += 2; // direct_claim.accepted, commitment.committed
  market.updatedAtMs = occurredAtMs;
  counts.accepted += 1;
  return true;
}

/** A frame that is not a claim: only a storm's market creation and publication are expected. */
function applyOther(markets: BoundMarkets, payload: Buffer, position: number, counts: Counts): void {
  const logged = decodeLoggedCommand(payload);
  const command = logged.c;
  counts.frames += 1;
  if (command.type === "market.create_draft" && command.mechanism.presetId === "direct-claim.v1") {
    const config = command.mechanism.config as { capacity: number };
    const market = new BoundMarket(Buffer.from(command.marketId, "latin1"), config.capacity, Buffer.from(command.identity.principalId, "latin1"));
    market.recordPosition(position);
    markets.add(market);
    return;
  }
  if (command.type === "market.publish") {
    const id = Buffer.from(command.marketId, "latin1");
    const market = markets.find(id, 0, id.length, fnv(id, 0, id.length));
    if (market === undefined || market.published) throw new Error("the bound reads storm logs only: publish of an unknown or published market");
    market.published = true;
    market.version += 1;
    market.eventCount += 1;
      market.recordPosition(position);
    return;
  }
  throw new Error(`the bound reads storm logs only, not ${command.type}`);
}

/**
 * The bound over every segment of `dir`. "walk" only reads the files and steps from frame to frame
 * (what any replay pays before it looks at a payload); "apply" also decides and folds every claim;
 * "apply + CRC" also recomputes each frame's CRC-32C.
 */
type BoundMode = "walk" | "apply" | "apply + CRC";
function boundReplay(dir: string, mode: BoundMode): { markets: BoundMarkets; counts: Counts } {
  const checkCrc = mode === "apply + CRC";
  const markets = new BoundMarkets();
  const counts: Counts = { frames: 0, accepted: 0, refused: 0 };
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  const segments = readdirSync(dir).filter((name) => name.endsWith(".seg")).sort();
  for (const name of segments) {
    const fd = openSync(path.join(dir, name), "r");
    try {
      let filled = readSync(fd, buffer, 0, CHUNK_BYTES, 0);
      let fileOffset = filled;
      let at = SEGMENT_HEADER_BYTES;
      let position = Number(buffer.readBigUInt64LE(SEGMENT_HEADER_BASE_OFFSET));
      for (;;) {
        if (filled - at < FRAME_HEADER_BYTES || filled - at < FRAME_HEADER_BYTES + buffer.readUInt32LE(at)) {
          // Move the partial frame to the front and read more.
          buffer.copy(buffer, 0, at, filled);
          filled -= at;
          at = 0;
          const read = readSync(fd, buffer, filled, CHUNK_BYTES - filled, fileOffset);
          fileOffset += read;
          filled += read;
          if (filled < FRAME_HEADER_BYTES) break;
        }
        const length = buffer.readUInt32LE(at);
        if (length === 0) break; // the preallocated, unwritten rest of the segment
        const frameBytes = FRAME_HEADER_BYTES + length;
        if (frameBytes > filled - at) throw new Error(`${name}: a frame runs past the end of the file`);
        if (checkCrc && crc32c(buffer.subarray(at + 8, at + frameBytes)) !== buffer.readUInt32LE(at + 4)) {
          throw new Error(`${name}: CRC mismatch at position ${position}`);
        }
        const p = at + FRAME_HEADER_BYTES;
        if (mode === "walk") counts.frames += 1;
        else if (!applyClaim(markets, buffer, p, p + length, position, counts)) applyOther(markets, buffer.subarray(p, p + length), position, counts);
        at += frameBytes;
        position += frameBytes;
      }
    } finally {
      closeSync(fd);
    }
  }
  return { markets, counts };
}

// ---------------------------------------------------------------------------------------------
// The comparison with the engine's replay (claim-log.ts's replayThroughEngine).

function sameDecisions(bound: BoundMarkets, engine: Map<string, MarketAggregate>): void {
  if (bound.all.length !== engine.size) throw new Error(`bound: ${bound.all.length} markets, engine: ${engine.size}`);
  for (const market of bound.all) {
    const id = Buffer.from(market.idBytes).toString("latin1");
    const agg = engine.get(id);
    if (agg === undefined) throw new Error(`bound has market ${id}, the engine does not`);
    const allocated = (agg.market.mechanismState as DirectClaimState).allocated;
    const same =
      allocated === market.allocated &&
      agg.commitments.count === market.rows &&
      agg.commandCount === market.positionCount &&
      agg.market.version === market.version &&
      agg.eventCount === market.eventCount;
    if (!same) throw new Error(`bound and engine differ on market ${id}`);
  }
}

rmSync(DIR, { recursive: true, force: true });
mkdirSync(DIR, { recursive: true });
const claims = COMMANDS - 2 * MARKETS;
if (claims < 0) throw new Error("--commands must cover two commands per market");
buildShard(DIR, MARKETS, claims, CAPACITY, new ManualClock(T0)).close();
const log = SegmentLog.open({ dir: DIR });

const BOUND_MODES: readonly BoundMode[] = ["walk", "apply", "apply + CRC"];
const samples = new Map<string, number[]>([["engine", []], ...BOUND_MODES.map((mode): [string, number[]] => [`bound: ${mode}`, []])]);
const time = (label: string, run: () => number): void => {
  const started = performance.now();
  const frames = run();
  if (frames !== COMMANDS) throw new Error(`${label}: ${frames} frames of ${COMMANDS}`);
  samples.get(label)?.push(((performance.now() - started) * 1000) / frames);
};
let accepted = 0;
for (let round = 0; round < ROUNDS; round += 1) {
  let engine: Map<string, MarketAggregate> | undefined;
  time("engine", () => {
    const replayed = replayThroughEngine(log);
    engine = replayed.markets;
    return replayed.frames;
  });
  for (const mode of BOUND_MODES) {
    let bound: ReturnType<typeof boundReplay> | undefined;
    time(`bound: ${mode}`, () => {
      bound = boundReplay(DIR, mode);
      return bound.counts.frames;
    });
    if (bound === undefined || engine === undefined) throw new Error("a round did not run");
    if (mode === "walk") continue;
    sameDecisions(bound.markets, engine);
    accepted = bound.counts.accepted;
  }
}
log.close();
rmSync(DIR, { recursive: true, force: true });

const rows = [...samples].map(([label, values]) => {
  const median = percentile([...values].sort((a, b) => a - b), 50);
  return { label, bestMicrosecondsPerFrame: Math.min(...values), medianMicrosecondsPerFrame: median, medianFramesPerSecond: Math.round(1e6 / median), microsecondsPerFrame: values };
});
const engineMedian = rows[0]?.medianMicrosecondsPerFrame ?? Number.NaN;
console.log(
  `replay ceiling: ${COMMANDS.toLocaleString("en-US")} commands (${accepted.toLocaleString("en-US")} claims accepted) over ${MARKETS} markets of capacity ${CAPACITY.toLocaleString("en-US")}; ${ROUNDS} rounds; Node ${process.version}`,
);
for (const row of rows) {
  console.log(
    `${row.label.padEnd(20)} best ${row.bestMicrosecondsPerFrame.toFixed(3)} µs/frame, median ${row.medianMicrosecondsPerFrame.toFixed(3)} µs/frame (${row.medianFramesPerSecond.toLocaleString("en-US")} frames/s; engine ÷ this ${(engineMedian / row.medianMicrosecondsPerFrame).toFixed(2)})`,
  );
}
const stem = freshResultStem(`replay-ceiling-${MARKETS}m-${CAPACITY}c`);
writeFileSync(
  path.join(RESULTS_DIR, `${stem}.json`),
  `${JSON.stringify({ date: new Date().toISOString(), machine: { cores: availableParallelism(), cpu: cpus()[0]?.model ?? "?", node: process.version, kernel: release() }, settings: { commands: COMMANDS, markets: MARKETS, capacity: CAPACITY, rounds: ROUNDS }, acceptedClaims: accepted, rows }, null, 2)}\n`,
);
console.log(`results: bench/results/${stem}.json`);
