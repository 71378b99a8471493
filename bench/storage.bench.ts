/**
 * Storage benchmarks: durable group-commit appends, raw log replay, startup after a snapshot
 * (trusted open + tail replay), CRC32C implementations.
 * Run: node --import tsx bench/storage.bench.ts     (bounded: fixed seconds per append row and a
 * fixed frame count; run times are in docs/storage.md, "Measured performance")
 * Optional: STORAGE_BENCH_STARTUP_FRAMES=10000000 adds the startup table for a 10M-frame log
 * (10M frames of 248 bytes under os.tmpdir(), so about 2.5 GB of disk).
 *
 * Logs are written under os.tmpdir(); the script checks (stat st_dev) whether that is the same
 * filesystem as the repo and prints it, because fsync cost is a property of the device.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { createHash, hash } from "node:crypto";
import * as zlib from "node:zlib";
import { Bench } from "tinybench";
import { SegmentLog } from "../storage/index.js";
import { crc32c, crc32cPortable } from "../storage/crc32c.js";
import { percentile } from "./percentile.js";

const PAYLOAD_BYTES = 200;
const APPEND_SECONDS_PER_BATCH_SIZE = 2;
const REPLAY_FRAMES = 1_000_000;
const REPLAY_WRITE_BATCH = 4096;
const TAIL_LSNS = 10_000;

function fmt(n: number, digits = 0): string {
  return n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

function printTable(title: string, header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]): string => "| " + cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join(" | ") + " |";
  console.log(`\n### ${title}\n`);
  console.log(line(header));
  console.log("|" + widths.map((w, i) => (i === 0 ? "-".repeat(w + 2) : "-".repeat(w + 1) + ":")).join("|") + "|");
  for (const row of rows) console.log(line(row));
}

function makePayload(seed: number): Buffer {
  const payload = Buffer.allocUnsafe(PAYLOAD_BYTES);
  for (let i = 0; i < PAYLOAD_BYTES; i++) payload[i] = (seed + i * 31) & 0xff;
  return payload;
}

function environment(benchRoot: string): void {
  const repoDev = fs.statSync(process.cwd()).dev;
  const tmpDev = fs.statSync(benchRoot).dev;
  console.log(`node ${process.version}, ${os.cpus().length} vCPU (${os.cpus()[0]?.model ?? "?"}), ${os.platform()} ${os.release()}`);
  console.log(`load average at start: ${os.loadavg().map((l) => l.toFixed(2)).join(" ")} (shared machine: other jobs skew wall-clock numbers)`);
  console.log(`bench dir ${benchRoot} st_dev=${tmpDev}; repo ${process.cwd()} st_dev=${repoDev} -> ${repoDev === tmpDev ? "SAME filesystem" : "DIFFERENT filesystems"}`);
}

function benchDurableAppends(benchRoot: string): void {
  const rows: string[][] = [];
  const payloads = Array.from({ length: 256 }, (_, i) => makePayload(i));
  for (const batchSize of [1, 16, 64, 256]) {
    const dir = fs.mkdtempSync(path.join(benchRoot, `append-${batchSize}-`));
    const log = SegmentLog.open({ dir });
    const commitMs: number[] = [];
    let appendNs = 0;
    let frames = 0;
    const started = process.hrtime.bigint();
    const deadline = started + BigInt(APPEND_SECONDS_PER_BATCH_SIZE * 1e9);
    while (process.hrtime.bigint() < deadline) {
      const a0 = process.hrtime.bigint();
      for (let i = 0; i < batchSize; i++) log.append(payloads[i] as Buffer);
      const c0 = process.hrtime.bigint();
      log.commitSync();
      const c1 = process.hrtime.bigint();
      appendNs += Number(c0 - a0);
      commitMs.push(Number(c1 - c0) / 1e6);
      frames += batchSize;
    }
    const elapsedS = Number(process.hrtime.bigint() - started) / 1e9;
    log.close();
    fs.rmSync(dir, { recursive: true, force: true });
    commitMs.sort((x, y) => x - y);
    rows.push([
      String(batchSize),
      fmt(frames / elapsedS),
      fmt(commitMs.length / elapsedS),
      fmt(percentile(commitMs, 50), 3),
      fmt(percentile(commitMs, 99), 3),
      fmt(appendNs / frames / 1000, 2),
    ]);
  }
  printTable(
    `Durable appends, ${PAYLOAD_BYTES}-byte payloads, ${APPEND_SECONDS_PER_BATCH_SIZE} s per row (append x batch, then commitSync = 1 pwrite + 1 fdatasync)`,
    ["batch", "records/s", "commits/s", "commit p50 ms", "commit p99 ms", "append µs/rec (CRC+SHA-256)"],
    rows,
  );
}

function benchReplay(benchRoot: string): void {
  const dir = fs.mkdtempSync(path.join(benchRoot, "replay-"));
  try {
    const payloads = Array.from({ length: 1024 }, (_, i) => makePayload(i));
    let log = SegmentLog.open({ dir });
    const w0 = performance.now();
    for (let i = 0; i < REPLAY_FRAMES; i++) {
      log.append(payloads[i & 1023] as Buffer);
      if ((i + 1) % REPLAY_WRITE_BATCH === 0) log.commitSync();
    }
    log.commitSync();
    const writeS = (performance.now() - w0) / 1000;
    const totalBytes = log.endPosition;
    const segments = log.stats.segments;
    log.close();

    const rows: string[][] = [];
    // CPU time is reported next to wall time because the dev VM is shared (2 vCPU): wall time
    // includes waiting for the CPU, process CPU time does not.
    let cpu0 = process.cpuUsage();
    const cpuSeconds = (): number => {
      const used = process.cpuUsage(cpu0);
      return (used.user + used.system) / 1e6;
    };
    const row = (label: string, seconds: number): void => {
      const cpu = cpuSeconds();
      rows.push([label, fmt(REPLAY_FRAMES / seconds), fmt(totalBytes / seconds / 1e6), fmt(seconds, 2), fmt(cpu, 2), fmt(REPLAY_FRAMES / cpu)]);
    };
    rows.push([`write ${fmt(REPLAY_FRAMES)} frames, commit every ${REPLAY_WRITE_BATCH} (durable)`,
      fmt(REPLAY_FRAMES / writeS), fmt(totalBytes / writeS / 1e6), fmt(writeS, 2), "", ""]);

    let t0 = performance.now();
    cpu0 = process.cpuUsage();
    log = SegmentLog.open({ dir });
    row("open: recovery scan (CRC + lsn continuity)", (performance.now() - t0) / 1000);
    if (log.lastLsn !== REPLAY_FRAMES) throw new Error(`expected ${REPLAY_FRAMES} frames, found ${log.lastLsn}`);
    log.close();
    benchStartup(dir, "the replay log below");
    log = SegmentLog.open({ dir });

    for (const verify of ["none", "crc", "chain"] as const) {
      t0 = performance.now();
      cpu0 = process.cpuUsage();
      let count = 0;
      let checksum = 0;
      for (const frame of log.frames(0, { verify })) {
        count++;
        checksum += frame.payload[0] as number; // touch the payload so the view is used
      }
      const seconds = (performance.now() - t0) / 1000;
      if (count !== REPLAY_FRAMES || checksum < 0) throw new Error("replay count mismatch");
      row(`frames(0, { verify: "${verify}" })`, seconds);
    }
    t0 = performance.now();
    cpu0 = process.cpuUsage();
    let copied = 0;
    for (const frame of log.frames(0, { verify: "crc", copyPayloads: true })) copied += frame.payload.length;
    row(`frames(0, { verify: "crc", copyPayloads: true })`, (performance.now() - t0) / 1000);
    if (copied !== REPLAY_FRAMES * PAYLOAD_BYTES) throw new Error("copy count mismatch");
    log.close();
    printTable(
      `Replay of the raw log: ${fmt(REPLAY_FRAMES)} frames x ${PAYLOAD_BYTES} B payload (${fmt(totalBytes / 1e6, 1)} MB in ${segments} segments, page cache warm)`,
      ["operation", "frames/s (wall)", "MB/s (wall)", "wall s", "cpu s", "frames per cpu-s"],
      rows,
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Startup after a snapshot on an existing log in `dir`: full-scan open vs open with the sealed
 * segments trusted (header, tiling and lsn boundaries only; the last segment is always
 * scanned), then replay of only the last TAIL_LSNS frames.
 */
function benchStartup(dir: string, what: string): void {
  const rows: string[][] = [];
  const measure = (label: string, run: () => string): void => {
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const work = run();
    const wallMs = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    rows.push([label, fmt(wallMs, 1), fmt((cpu.user + cpu.system) / 1000, 1), work]);
  };
  let lastLsn = 0;
  let endPosition = 0;
  let chainHead: Buffer = Buffer.alloc(0);
  let segments = 0;
  measure("open, full scan (default)", () => {
    const log = SegmentLog.open({ dir });
    lastLsn = log.lastLsn;
    endPosition = log.endPosition;
    chainHead = log.chainHead;
    segments = log.stats.segments;
    log.close();
    return `${log.recovery.segmentsScanned} segments / ${fmt(log.recovery.framesScanned)} frames scanned`;
  });
  const tailFrom = lastLsn - TAIL_LSNS;
  for (const [label, extra] of [
    ["open, trustSealedSegmentsBeforePosition = end of log", { trustSealedSegmentsBeforePosition: endPosition }],
    [`open, trustSealedSegmentsThroughLsn = lastLsn - ${fmt(TAIL_LSNS)}`, { trustSealedSegmentsThroughLsn: tailFrom }],
  ] as const) {
    measure(label, () => {
      const log = SegmentLog.open({ dir, ...extra });
      const { recovery } = log;
      if (log.lastLsn !== lastLsn || !log.chainHead.equals(chainHead)) throw new Error("trusted open disagrees with full open");
      log.close();
      return `${recovery.segmentsTrusted} trusted (${fmt(recovery.framesTrusted)} frames), ` +
        `${recovery.segmentsScanned} scanned (${fmt(recovery.framesScanned)} frames)`;
    });
  }
  const log = SegmentLog.open({ dir, trustSealedSegmentsBeforePosition: endPosition });
  try {
    for (const verify of ["none", "crc", "chain"] as const) {
      measure(`frames(lastLsn - ${fmt(TAIL_LSNS)}, { verify: "${verify}" })`, () => {
        let count = 0;
        for (const frame of log.frames(tailFrom, { verify })) count += frame.payload.length > 0 ? 1 : 0;
        if (count !== TAIL_LSNS) throw new Error("tail replay count mismatch");
        return `${fmt(TAIL_LSNS)} frames yielded; the start segment is read from its first frame`;
      });
    }
  } finally {
    log.close();
  }
  printTable(
    `Startup after a snapshot: ${what}, ${fmt(lastLsn)} frames x ${PAYLOAD_BYTES} B, ${segments} segments of 64 MiB (page cache warm)`,
    ["operation", "wall ms", "cpu ms", "work"],
    rows,
  );
}

/** Optional: STORAGE_BENCH_STARTUP_FRAMES=10000000 also runs the startup table on a log that large. */
function benchLargeStartup(benchRoot: string): void {
  const frames = Number(process.env["STORAGE_BENCH_STARTUP_FRAMES"] ?? 0);
  if (!Number.isSafeInteger(frames) || frames <= TAIL_LSNS) return;
  const dir = fs.mkdtempSync(path.join(benchRoot, "startup-"));
  try {
    const payloads = Array.from({ length: 1024 }, (_, i) => makePayload(i));
    const log = SegmentLog.open({ dir });
    const t0 = performance.now();
    for (let i = 0; i < frames; i++) {
      log.append(payloads[i & 1023] as Buffer);
      if ((i + 1) % REPLAY_WRITE_BATCH === 0) log.commitSync();
    }
    log.commitSync();
    console.log(`\nwrote ${fmt(frames)} frames (${fmt(log.endPosition / 1e9, 2)} GB) in ${fmt((performance.now() - t0) / 1000, 1)} s`);
    log.close();
    benchStartup(dir, "STORAGE_BENCH_STARTUP_FRAMES log");
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function benchChecksums(): Promise<void> {
  const zlibCrc32 = (zlib as unknown as { crc32?: (data: Uint8Array) => number }).crc32;
  const rows: string[][] = [];
  for (const sizeBytes of [200, 64 * 1024]) {
    const data = Buffer.allocUnsafe(sizeBytes).fill(0xa5);
    const bench = new Bench({ time: 400, warmup: true });
    bench.add("crc32c @node-rs/crc32 (native SIMD)", () => { crc32c(data); });
    bench.add("crc32c portable JS (slice-by-8)", () => { crc32cPortable(data); });
    if (zlibCrc32 !== undefined) bench.add("zlib.crc32 (CRC-32/IEEE, NOT crc32c)", () => { zlibCrc32(data); });
    bench.add("sha256 crypto.hash (one-shot)", () => { hash("sha256", data, "buffer"); });
    bench.add("sha256 createHash().update().digest()", () => { createHash("sha256").update(data).digest(); });
    await bench.run();
    for (const task of bench.tasks) {
      const result = task.result as unknown as { throughput?: { mean: number } } | undefined;
      const opsPerSecond = result?.throughput?.mean ?? Number.NaN;
      rows.push([`${task.name}`, fmt(sizeBytes), fmt(opsPerSecond), fmt((opsPerSecond * sizeBytes) / 1e6)]);
    }
  }
  printTable("Checksums and hashes (tinybench, 400 ms per task)", ["implementation", "input bytes", "ops/s", "MB/s"], rows);
}

async function main(): Promise<void> {
  const benchRoot = fs.mkdtempSync(path.join(os.tmpdir(), "storage-bench-"));
  const started = performance.now();
  try {
    environment(benchRoot);
    benchDurableAppends(benchRoot);
    benchReplay(benchRoot);
    benchLargeStartup(benchRoot);
    await benchChecksums();
  } finally {
    fs.rmSync(benchRoot, { recursive: true, force: true });
  }
  console.log(`\ntotal ${fmt((performance.now() - started) / 1000, 1)} s; load average at end: ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`);
}

await main();
