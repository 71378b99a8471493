/**
 * Where a storm's CPU goes on the whole machine, by Linux `perf` (bench:cluster --perf): a
 * system-wide sampling of every CPU during the storm (`perf record -a`, cpu-clock), then each
 * sample's innermost frame classified by whose process it is (a service, a NATS server) and what
 * runs there (the kernel, V8's optimizing compiler, its garbage collector, compiled JavaScript…).
 *
 * Why perf and not the services' own CPU profiles: on a machine whose cores every process shares,
 * V8's profiler samples by wall time and charges a thread's time off the CPU to whatever it was
 * running when it was preempted, and it sees neither the kernel nor the NATS servers. perf samples
 * CPU time only, of every process and of the kernel on their behalf.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import * as path from "node:path";

/** Samples per second per CPU of a whole-machine recording: seconds of CPU = samples / this. */
const EVERY_CPU_HZ = 497;
/** Of one process, with call graphs, for reading by hand (bench:guard --perf). */
const ONE_PROCESS_HZ = 2999;

export type PerfRole = "service" | "nats";

/** CPU seconds by role and what ran, e.g. `{ "service | V8 compiler": 0.53 }`. */
export type PerfSeconds = Record<string, number>;

/** A `perf record` (cpu-clock) running until `stop` resolves with its file written. */
export interface PerfRecording {
  stop(): Promise<void>;
}

/**
 * Records into `file` until stopped: of one process's threads with call graphs (`{ pid }`), or of
 * every CPU, every process and the kernel, leaf frames only (what `perfSeconds` reads).
 */
export function recordPerf(file: string, of: { readonly pid: number } | "every CPU"): PerfRecording {
  mkdirSync(path.dirname(file), { recursive: true });
  const target = of === "every CPU" ? ["-a", "-F", String(EVERY_CPU_HZ)] : ["-g", "-F", String(ONE_PROCESS_HZ), "-p", String(of.pid)];
  const child = spawn("perf", ["record", "-e", "cpu-clock", ...target, "-o", file], { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code, signal) => resolve({ code, signal }));
  });
  return {
    stop: async () => {
      // perf writes its file on SIGINT and ends by it.
      child.kill("SIGINT");
      const { code, signal } = await exited;
      if (code !== 0 && signal !== "SIGINT") throw new Error(`perf record ended with ${signal ?? `code ${code}`}: ${stderr.trim()}`);
    },
  };
}

/** Fails at once, in words, when perf cannot record here (not installed, not permitted). */
export function requirePerf(): void {
  const probe = spawnSync("perf", ["record", "-e", "cpu-clock", "-a", "-F", String(EVERY_CPU_HZ), "-o", "/dev/null", "--", "true"], { encoding: "utf8" });
  if (probe.error !== undefined || probe.status !== 0) {
    throw new Error(`--perf needs Linux perf allowed to record every CPU (apt-get install linux-tools-generic, or run as root): ${probe.error?.message ?? probe.stderr.trim()}`);
  }
}

/** The CPU seconds in `file` (a recording of every CPU) of the processes in `roles`, by role and category (other processes left out). */
export function perfSeconds(file: string, roles: ReadonlyMap<number, PerfRole>): PerfSeconds {
  const script = spawnSync("perf", ["script", "-i", file, "-F", "comm,pid,ip,sym,dso"], { encoding: "utf8", maxBuffer: 1 << 30 });
  if (script.status !== 0) throw new Error(`perf script failed: ${script.stderr.trim()}`);
  return secondsOfSamples(script.stdout, roles);
}

/** `perf script -F comm,pid,ip,sym,dso` output of a recording of every CPU, as `perfSeconds` returns it. */
export function secondsOfSamples(text: string, roles: ReadonlyMap<number, PerfRole>): PerfSeconds {
  const samples = new Map<string, number>();
  for (const line of text.split("\n")) {
    const sample = /^\s*\S.*?\s(\d+)\s+[0-9a-f]+\s+(.*?)\s+\((.*)\)\s*$/.exec(line);
    if (sample === null) continue;
    const role = roles.get(Number(sample[1]));
    if (role === undefined) continue;
    const key = `${role} | ${categoryOf(role, sample[2] ?? "", sample[3] ?? "")}`;
    samples.set(key, (samples.get(key) ?? 0) + 1);
  }
  return Object.fromEntries([...samples].map(([key, count]) => [key, count / EVERY_CPU_HZ]));
}

/** What a sample's innermost frame was running. */
export function categoryOf(role: PerfRole, symbol: string, dso: string): string {
  if (dso.includes("kernel")) return "kernel";
  if (role === "nats") return "user";
  if (/compiler::|turboshaft|maglev|Zone/.test(symbol)) return "V8 compiler";
  if (/Scaveng|Marking|Sweep|Heap::|Evacuat|Compact|RememberedSet|MinorMC/.test(symbol)) return "V8 GC";
  if (dso.startsWith("/tmp/perf-") || dso === "[unknown]" || dso.startsWith("[JIT]")) return "JavaScript (compiled)";
  if (dso.includes("libc.so")) return "libc";
  if (symbol.startsWith("Builtins_")) return "V8 builtins";
  return "node and V8, other";
}
