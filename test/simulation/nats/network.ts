/**
 * The network between the service nodes and the NATS servers, as the seed draws it: how long a
 * message takes, whether it is lost or delivered twice, whether a node is cut off, whether the
 * answer to a JetStream request is lost after the request was carried out. Faults (faults.ts)
 * change these conditions while the seed runs.
 */
import type { Random } from "../random.js";

export interface NetworkConditions {
  /** Chance that a core NATS message (a request, a reply, a published event) is lost. */
  lossRate: number;
  /** Chance that a core NATS message is delivered twice. */
  duplicateRate: number;
  /** Core messages take independent delays (arrive out of order) instead of keeping their connection's order. */
  reorder: boolean;
  /** Chance that the answer to a JetStream request (a publish's ack, a KV write's) is lost after it was carried out. */
  ackLossRate: number;
  /** Chance that a message is slow (a delay of up to `slowMs`). */
  slowRate: number;
  slowMs: number;
}

export const CALM: NetworkConditions = { lossRate: 0, duplicateRate: 0, reorder: false, ackLossRate: 0, slowRate: 0, slowMs: 0 };

export class Network {
  conditions: NetworkConditions = { ...CALM };
  /** Nodes cut off from every NATS server (by node name). */
  readonly cut = new Set<string>();

  constructor(private readonly random: Random) {}

  /** One hop's delay in ms: usually 0–2, sometimes slow. */
  delayMs(): number {
    const { slowRate, slowMs } = this.conditions;
    if (this.random.chance(slowRate)) return this.random.int(5, Math.max(5, slowMs));
    return this.random.int(0, 2);
  }

  lost(): boolean {
    return this.random.chance(this.conditions.lossRate);
  }

  duplicated(): boolean {
    return this.random.chance(this.conditions.duplicateRate);
  }

  ackLost(): boolean {
    return this.random.chance(this.conditions.ackLossRate);
  }

  isCut(node: string): boolean {
    return this.cut.has(node);
  }

  /** A draw for the servers' own choices (which queue member gets a message, what survives an election). */
  choose<T>(items: readonly T[]): T {
    return this.random.pick(items);
  }

  chance(probability: number): boolean {
    return this.random.chance(probability);
  }

  int(low: number, high: number): number {
    return this.random.int(low, high);
  }
}
