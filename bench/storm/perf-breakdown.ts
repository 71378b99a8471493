/**
 * Where a storm's CPU goes on the whole machine, by Linux `perf` (bench:cluster --perf): a
 * system-wide sampling of every CPU during the storm (`perf record -a`, cpu-clock), then each
 * sample's innermost frame classified by whose process it is (a service, a NATS server) and what
 * runs there (the kernel, V8's optimizing compiler, its garbage collector, compiled JavaScript…).
 *
 * Why perf and not the services' own CPU profiles: on a machine whose cores every process shares,
 * V8's profiler samples by wall time and charges a thread's time off the CPU to whatever it was
 * running when it was preempted, and it sees neither the kernel nor the NATS servers. perf samples
 * CPU time only, of every process and of the kernel in their context (not the kernel's own
 * threads: the journal's commits of their fsyncs, deferred interrupts).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdirSync } from "node:fs";
import * as path from "node:path";

/** Samples per second per CPU of a whole-machine recording: seconds of CPU = samples / this. */
export const EVERY_CPU_HZ = 497;
/** Of one process, with call graphs, for reading by hand (bench:guard --perf). */
const ONE_PROCESS_HZ = 2999;

export type PerfRole = "service" | "nats";

export type PerfCategory = "kernel" | "user" | "V8 compiler" | "V8 GC" | "JavaScript (compiled)" | "libc" | "V8 builtins" | "node and V8, other";

/** CPU seconds by `"<role> | <category>"`. */
export type PerfSeconds = Record<string, number>;

/** A `perf record` (cpu-clock) of one process's threads, with call graphs, until `stop` resolves with its file written. */
export interface PerfRecording {
  stop(): Promise<void>;
}

export function recordProcess(file: string, pid: number): PerfRecording {
  const child = spawnPerf(["record", "-e", "cpu-clock", "-g", "-F", String(ONE_PROCESS_HZ), "-p", String(pid), "-o", file], file);
  return {
    stop: async () => {
      // perf writes its file on SIGINT and ends by it.
      child.process.kill("SIGINT");
      await child.ended;
    },
  };
}

/**
 * Every CPU, every process and the kernel, leaf frames only (what `perfSeconds` reads), for
 * `seconds` from once perf has started counting (it runs `sleep` as its workload, so the time it
 * takes to start is not in the window and it stops by itself): resolves when the file is written.
 */
export function recordEveryCpu(file: string, seconds: number): Promise<void> {
  return spawnPerf(["record", "-e", "cpu-clock", "-a", "-F", String(EVERY_CPU_HZ), "-o", file, "--", "sleep", String(seconds)], file).ended;
}

/** perf with `args`, writing `file`; `ended` settles once when it has ended, rejecting unless by SIGINT or with code 0. */
function spawnPerf(args: string[], file: string): { process: ChildProcess; ended: Promise<void> } {
  mkdirSync(path.dirname(file), { recursive: true });
  const child = spawn("perf", args, { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const ended = new Promise<void>((resolve, reject) => {
    child.once("error", (error) => reject(new Error(`perf could not start: ${error.message}`)));
    child.once("exit", (code, signal) => (code === 0 || signal === "SIGINT" ? resolve() : reject(new Error(`perf record ended with ${signal ?? `code ${code}`}: ${stderr.trim()}`))));
  });
  // A failure is reported to whoever awaits `ended`, never as an unhandled rejection before that.
  ended.catch(() => undefined);
  return { process: child, ended };
}

/** Fails at once, in words, when perf cannot record here (not installed, not permitted). */
export function requirePerf(): void {
  const probe = spawnSync("perf", ["record", "-e", "cpu-clock", "-a", "-F", String(EVERY_CPU_HZ), "-o", "/dev/null", "--", "true"], { encoding: "utf8" });
  if (probe.error !== undefined || probe.status !== 0) {
    throw new Error(
      `--perf needs Linux perf allowed to record every CPU (apt-get install linux-tools-generic; run as root or lower kernel.perf_event_paranoid): ${probe.error?.message ?? probe.stderr.trim()}`,
    );
  }
}

/** The CPU seconds in `file` (a recording of every CPU) of the processes in `roles`, by role and category (other processes left out). */
export function perfSeconds(file: string, roles: ReadonlyMap<number, PerfRole>): PerfSeconds {
  const script = spawnSync("perf", ["script", "-i", file, "-F", "pid,ip,sym,dso"], { encoding: "utf8", maxBuffer: 1 << 30 });
  if (script.status !== 0) throw new Error(`perf script failed: ${script.stderr.trim()}`);
  return secondsOfSamples(script.stdout, roles);
}

/** `perf script -F pid,ip,sym,dso` output of a recording of every CPU, as `perfSeconds` returns it. */
export function secondsOfSamples(text: string, roles: ReadonlyMap<number, PerfRole>): PerfSeconds {
  const samples = new Map<string, number>();
  for (const line of text.split("\n")) {
    const sample = /^\s*(\d+)\s+[0-9a-f]+\s+(.*?)\s+\(([^()]*)\)\s*$/.exec(line);
    if (sample === null) continue;
    const role = roles.get(Number(sample[1]));
    if (role === undefined) continue;
    const key = `${role} | ${categoryOf(role, sample[2] ?? "", sample[3] ?? "")}`;
    samples.set(key, (samples.get(key) ?? 0) + 1);
  }
  return Object.fromEntries([...samples].map(([key, count]) => [key, count / EVERY_CPU_HZ]));
}

/** The kernel and its modules (`[kernel.kallsyms]`, `[virtio_blk]`), not the other bracketed names perf gives. */
function inKernel(dso: string): boolean {
  return dso.startsWith("[") && !["[unknown]", "[vdso]", "[vsyscall]"].includes(dso) && !dso.startsWith("[JIT]");
}

/**
 * What a sample's innermost frame was running. The compiler's share is a lower bound: its time in
 * malloc and memcpy counts as libc, and only the optimizing tiers' names are matched.
 */
export function categoryOf(role: PerfRole, symbol: string, dso: string): PerfCategory {
  if (inKernel(dso)) return "kernel";
  if (role === "nats") return "user";
  if (/compiler::|turboshaft|maglev|baseline::|Compiler::/.test(symbol)) return "V8 compiler";
  if (/Scaveng|Marking|Sweep|Heap::|Evacuat|Compact|RememberedSet|MinorMC/.test(symbol)) return "V8 GC";
  if (dso.startsWith("/tmp/perf-") || dso === "[unknown]" || dso.startsWith("[JIT]")) return "JavaScript (compiled)";
  if (dso.includes("libc.so")) return "libc";
  if (symbol.startsWith("Builtins_")) return "V8 builtins";
  return "node and V8, other";
}
