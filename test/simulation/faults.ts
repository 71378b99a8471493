/**
 * The faults of a seed, drawn from it and applied at their instants: a node killed (kill -9) and
 * started again, stopped (SIGTERM) and started again, paused past its lease (SIGSTOP), cut off from
 * every NATS server; a stream's or bucket's leader lost (an election of 4–8 s, as measured on real
 * NATS: docs/cluster.md); the network losing, duplicating, reordering or slowing core messages, or
 * losing the answers of JetStream requests carried out; a node's clock set off (at a start).
 */
import { CALM, type NetworkConditions } from "./nats/network.js";
import type { Random } from "./random.js";

export type Fault =
  | { readonly kind: "crash"; readonly node: string; readonly downMs: number; readonly skewMs: number }
  | { readonly kind: "stop"; readonly node: string; readonly downMs: number; readonly skewMs: number }
  | { readonly kind: "pause"; readonly node: string; readonly ms: number }
  | { readonly kind: "cut"; readonly node: string; readonly ms: number }
  /** `group`: which of the servers' groups (streams, buckets) at that moment, by index. */
  | { readonly kind: "election"; readonly group: number; readonly outageMs: number }
  | { readonly kind: "network"; readonly conditions: NetworkConditions; readonly ms: number };

export interface PlannedFault {
  readonly atMs: number;
  readonly fault: Fault;
}

export function describeFault(fault: Fault): string {
  switch (fault.kind) {
    case "crash":
      return `kill -9 ${fault.node}, restart after ${fault.downMs} ms`;
    case "stop":
      return `SIGTERM ${fault.node}, restart after ${fault.downMs} ms`;
    case "pause":
      return `SIGSTOP ${fault.node} for ${fault.ms} ms`;
    case "cut":
      return `cut ${fault.node} off NATS for ${fault.ms} ms`;
    case "election":
      return `leader election of group #${fault.group} (${fault.outageMs} ms)`;
    case "network": {
      const c = fault.conditions;
      return `network for ${fault.ms} ms: loss ${c.lossRate}, duplicates ${c.duplicateRate}, reorder ${c.reorder}, ack loss ${c.ackLossRate}, slow ${c.slowRate} (≤ ${c.slowMs} ms)`;
    }
  }
}

/** A skew for a node's clock: mostly within the leases' safety margin, sometimes beyond it. */
export function drawSkew(random: Random, leaseMs: number): number {
  const margin = Math.floor(leaseMs / 10);
  return random.chance(0.7) ? random.int(-margin, margin) : random.int(-3 * margin, 3 * margin);
}

export function drawFaults(random: Random, nodes: readonly string[], activeMs: number, leaseMs: number): PlannedFault[] {
  const faults: PlannedFault[] = [];
  const count = random.pick([0, 1, 2, 3, 4, 6]);
  for (let i = 0; i < count; i++) {
    const atMs = random.int(500, Math.max(600, activeMs - 1_000));
    const node = random.pick(nodes);
    const kind = random.pick(["crash", "crash", "stop", "pause", "pause", "cut", "election", "election", "network"] as const);
    let fault: Fault;
    switch (kind) {
      case "crash":
      case "stop":
        fault = { kind, node, downMs: random.int(200, 4_000), skewMs: drawSkew(random, leaseMs) };
        break;
      case "pause":
        fault = { kind, node, ms: random.chance(0.7) ? random.int(leaseMs, 3 * leaseMs) : random.int(50, leaseMs) };
        break;
      case "cut":
        fault = { kind, node, ms: random.int(300, 3 * leaseMs) };
        break;
      case "election":
        fault = { kind, group: random.int(0, 1_000), outageMs: random.int(4_000, 8_000) };
        break;
      case "network":
        fault = {
          kind,
          ms: random.int(500, 5_000),
          conditions: {
            ...CALM,
            lossRate: random.pick([0, 0.02, 0.1]),
            duplicateRate: random.pick([0, 0.02, 0.1]),
            reorder: random.chance(0.5),
            ackLossRate: random.pick([0, 0.05, 0.2]),
            slowRate: random.pick([0, 0.05, 0.2]),
            slowMs: random.int(20, 2_000),
          },
        };
        break;
    }
    faults.push({ atMs, fault });
  }
  return faults.sort((a, b) => a.atMs - b.atMs);
}
