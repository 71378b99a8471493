/**
 * Strict JSON: the production scanner (validate, then native JSON.parse) against a hand-written
 * one-pass parser, with plain JSON.parse as the floor. Not a test (vitest only runs *.test.ts).
 *
 *   node --import tsx test/http/strict-json.bench.ts
 *
 * Bodies: a ~120-byte direct claim, and a ~100 KB market creation whose subject.data is a nested
 * catalogue. Results go to docs/http.md.
 */
import { loadavg } from "node:os";
import { Bench } from "tinybench";
import { parseStrictJson } from "../../gateway/http/strict-json/index.js";
import { handParseStrictJson } from "./support/strict-json-hand-parser.js";

const claim = Buffer.from(
  JSON.stringify({ commandId: "claim-7f3a9c21-0001", expectedVersion: 0, principalId: "principal-alice-0001", authorityRef: "delegation-42" }),
);

interface Node {
  level: number;
  label: string;
  items: (Node | Leaf)[];
}
interface Leaf {
  sku: string;
  qty: number;
  priceMinor: number;
  ratio: number;
  tags: string[];
  note: string;
}
function catalogue(depth: number, fanOut: number): Node | Leaf {
  if (depth === 0) {
    return { sku: "SKU-123456", qty: 12, priceMinor: 1999, ratio: 0.25, tags: ["a", "bb", "ccc"], note: 'plain "quoted" text' };
  }
  return { level: depth, label: `node-${depth}`, items: Array.from({ length: fanOut }, () => catalogue(depth - 1, fanOut)) };
}
const large = Buffer.from(
  JSON.stringify({
    commandId: "create-1",
    marketId: "market-1",
    principalId: "principal-1",
    subject: { schema: "catalogue.v1", data: catalogue(6, 3) },
    mechanism: { preset: "direct-claim.v1", config: { capacity: 10 } },
  }),
);

for (const [name, body] of [
  ["claim", claim],
  ["large", large],
] as const) {
  const ours = parseStrictJson(body);
  const theirs = handParseStrictJson(body);
  if (!ours.ok || !theirs.ok || JSON.stringify(ours.value) !== JSON.stringify(theirs.value)) {
    throw new Error(`the parsers disagree on the ${name} body`);
  }
}

const bench = new Bench({ time: 2000, warmup: true });
for (const [name, body] of [
  [`claim ${claim.length} B`, claim],
  [`large ${large.length} B`, large],
] as const) {
  bench.add(`${name}: JSON.parse (no strict checks, floor)`, () => JSON.parse(body.toString("utf8")) as unknown);
  bench.add(`${name}: parseStrictJson (scan + JSON.parse)`, () => parseStrictJson(body));
  bench.add(`${name}: hand-written one-pass parser`, () => handParseStrictJson(body));
}
await bench.run();

console.log(`node ${process.version}, load average ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
console.table(
  bench.tasks.map((task) => {
    const result = task.result as { throughput: { mean: number }; latency: { p50?: number; mean: number } } | undefined;
    return {
      task: task.name,
      "ops/s": Math.round(result?.throughput.mean ?? 0),
      "p50 µs": ((result?.latency.p50 ?? Number.NaN) * 1000).toFixed(2),
      "mean µs": ((result?.latency.mean ?? Number.NaN) * 1000).toFixed(2),
    };
  }),
);

// tinybench measures wall time, which other processes on a shared machine disturb. Second view:
// process CPU time, the three contenders interleaved round by round, minimum and median of 8.
const contenders: [string, (body: Buffer) => unknown][] = [
  ["JSON.parse", (body) => JSON.parse(body.toString("utf8")) as unknown],
  ["parseStrictJson", (body) => parseStrictJson(body)],
  ["hand-written", (body) => handParseStrictJson(body)],
];
const ROUNDS = 8;
for (const [name, body, iterations] of [
  ["claim", claim, 200_000],
  ["large", large, 200],
] as const) {
  const samplesUs = new Map<string, number[]>(contenders.map(([label]) => [label, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [label, run] of contenders) {
      const start = process.cpuUsage();
      for (let i = 0; i < iterations; i++) run(body);
      const used = process.cpuUsage(start);
      samplesUs.get(label)?.push((used.user + used.system) / iterations);
    }
  }
  for (const [label, samples] of samplesUs) {
    samples.sort((a, b) => a - b);
    const min = samples[0] ?? Number.NaN;
    const median = samples[Math.floor(ROUNDS / 2)] ?? Number.NaN;
    console.log(`cpu ${name.padEnd(5)} ${label.padEnd(16)} min ${min.toFixed(2).padStart(8)} µs  median ${median.toFixed(2).padStart(8)} µs`);
  }
}
