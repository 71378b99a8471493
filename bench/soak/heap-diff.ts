/**
 * What grew between two V8 heap snapshots (e.g. the soak's `--heap-snapshots 1,9`): objects counted
 * and their self sizes summed by constructor (node type and name), the late snapshot minus the
 * early one, largest growth first. Self sizes, not retained sizes: a leak shows up as a constructor
 * whose count climbs with the requests served, which is what this answers; follow it in DevTools
 * for the retainer.
 *
 *   node --import tsx bench/soak/heap-diff.ts <early.heapsnapshot> <late.heapsnapshot> [rows]
 */
import { readFileSync } from "node:fs";

interface HeapSnapshotFile {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

interface Group {
  count: number;
  selfBytes: number;
}

/** Count and self size per "type name" (strings and code grouped by type only: their names are contents). */
export function groupsOf(file: string): Map<string, Group> {
  const text = readFileSync(file, "utf8");
  let heap: HeapSnapshotFile;
  try {
    heap = JSON.parse(text) as HeapSnapshotFile;
  } catch {
    // V8 cuts long strings in a snapshot at a fixed length, sometimes inside a `\uXXXX` escape,
    // which JSON.parse refuses. Only string contents are affected: neutralize the broken escapes.
    heap = JSON.parse(text.replace(/\\u(?![0-9a-fA-F]{4})/g, "?")) as HeapSnapshotFile;
  }
  const fields = heap.snapshot.meta.node_fields;
  const typeNames = heap.snapshot.meta.node_types[0];
  const stride = fields.length;
  const typeAt = fields.indexOf("type");
  const nameAt = fields.indexOf("name");
  const sizeAt = fields.indexOf("self_size");
  const groups = new Map<string, Group>();
  for (let i = 0; i < heap.nodes.length; i += stride) {
    const type = typeNames[heap.nodes[i + typeAt] as number] ?? "?";
    const keepName = type === "object" || type === "closure" || type === "native" || type === "hidden";
    const key = keepName ? `${type} ${heap.strings[heap.nodes[i + nameAt] as number] ?? "?"}` : type;
    const group = groups.get(key) ?? { count: 0, selfBytes: 0 };
    group.count += 1;
    group.selfBytes += heap.nodes[i + sizeAt] as number;
    groups.set(key, group);
  }
  return groups;
}

function main(): void {
  const [early, late, rowsText] = process.argv.slice(2);
  if (early === undefined || late === undefined) throw new Error("usage: heap-diff.ts <early.heapsnapshot> <late.heapsnapshot> [rows]");
  const rows = Number(rowsText ?? 30);
  const before = groupsOf(early);
  const after = groupsOf(late);
  const keys = new Set([...before.keys(), ...after.keys()]);
  const diff = [...keys].map((key) => {
    const a = before.get(key) ?? { count: 0, selfBytes: 0 };
    const b = after.get(key) ?? { count: 0, selfBytes: 0 };
    return { key, count: b.count - a.count, bytes: b.selfBytes - a.selfBytes, countAfter: b.count, bytesAfter: b.selfBytes };
  });
  diff.sort((x, y) => y.bytes - x.bytes);
  const total = (groups: Map<string, Group>) => [...groups.values()].reduce((sum, g) => sum + g.selfBytes, 0);
  process.stdout.write(`total self size: ${(total(before) / 1e6).toFixed(1)} MB → ${(total(after) / 1e6).toFixed(1)} MB\n`);
  process.stdout.write(`${"Δ bytes".padStart(12)} ${"Δ count".padStart(9)} ${"bytes after".padStart(12)} ${"count after".padStart(11)}  constructor\n`);
  for (const d of diff.slice(0, rows)) {
    process.stdout.write(`${String(d.bytes).padStart(12)} ${String(d.count).padStart(9)} ${String(d.bytesAfter).padStart(12)} ${String(d.countAfter).padStart(11)}  ${d.key}\n`);
  }
}

main();
