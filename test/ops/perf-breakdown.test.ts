/**
 * bench/storm/perf-breakdown.ts, which bench:cluster --perf uses to say where a storm's CPU went:
 * lines as `perf script -F pid,ip,sym,dso` prints a recording of every CPU, classified by
 * whose process each sample is and what ran in it.
 */
import { describe, expect, it } from "vitest";
import { categoryOf, EVERY_CPU_HZ, secondsOfSamples, type PerfRole } from "../../bench/storm/perf-breakdown.js";

const SERVICE = 13827;
const NATS = 13802;
const roles = new Map<number, PerfRole>([
  [SERVICE, "service"],
  [NATS, "nats"],
]);

const samples = [
  "  13827          14c5aac Builtins_CallFunction_ReceiverIsNotNullOrUndefined (/usr/bin/node)",
  "  13827          1e417c5 v8::internal::compiler::PipelineImpl::AllocateRegistersForTopTier (/usr/bin/node)",
  "  13827     7fa974283cbb JS:*submitAnywhere file:///work/main/dist/engine/cluster/cluster-runtime.js:170:25 (/tmp/perf-13827.map)",
  "  13827     561a33300750 [unknown] ([unknown])",
  "  13827 ffffffff8225f759 pvm_irq_enable ([kernel.kallsyms])",
  "  13827          c49cec v8::internal::Scavenger::ScavengePage (/usr/bin/node)",
  "  13802           d5907 [unknown] (/work/main/.tools/nats-server/x/usr/sbin/nats-server)",
  "  13802 ffffffff8136979d handle_softirqs ([kernel.kallsyms])",
  "  13802 ffffffffc0012345 virtblk_request_done ([virtio_blk])",
  "  14309 ffffffff8136979d handle_softirqs ([kernel.kallsyms])",
  "",
].join("\n");

describe("a recording of every CPU, by process and what ran", () => {
  it("counts each sample of a known process once, under its role and category, and leaves other processes out", () => {
    const seconds = secondsOfSamples(samples, roles);
    const counts = Object.fromEntries(Object.entries(seconds).map(([key, s]) => [key, Math.round(s * EVERY_CPU_HZ)]));
    expect(counts).toEqual({
      "service | V8 builtins": 1,
      "service | V8 compiler": 1,
      "service | JavaScript (compiled)": 2,
      "service | kernel": 1,
      "service | V8 GC": 1,
      "nats | user": 1,
      "nats | kernel": 2,
    });
  });

  it("names libc and what is left of node and V8 apart", () => {
    expect(categoryOf("service", "__memmove_avx512_unaligned_erms", "/usr/lib/x86_64-linux-gnu/libc.so.6")).toBe("libc");
    expect(categoryOf("service", "uv__io_poll", "/usr/bin/node")).toBe("node and V8, other");
    expect(categoryOf("nats", "runtime.mallocgc", "/usr/sbin/nats-server")).toBe("user");
  });
});
