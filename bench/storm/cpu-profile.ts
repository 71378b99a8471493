/**
 * Self time per frame in a V8 CPU profile (`--cpu-prof`, or the inspector's Profiler): what
 * bench/profile-top.ts prints per thread and bench/gateway-sample.ts per request.
 */
export interface CpuProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

export interface CpuProfile {
  nodes: CpuProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface SelfTimes {
  /** Microseconds of self time per frame key; "(idle)" frames are left out. */
  readonly byFrame: Map<string, number>;
  readonly totalUs: number;
  readonly idleUs: number;
}

/** Sums each sample's time delta onto its frame's key (`keyOf` decides what counts as one frame). */
export function selfTimes(profile: CpuProfile, keyOf: (node: CpuProfileNode) => string): SelfTimes {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const byFrame = new Map<string, number>();
  let totalUs = 0;
  let idleUs = 0;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    const node = byId.get(id);
    if (node === undefined) return;
    totalUs += delta;
    if (node.callFrame.functionName === "(idle)") {
      idleUs += delta;
      return;
    }
    const key = keyOf(node);
    byFrame.set(key, (byFrame.get(key) ?? 0) + delta);
  });
  return { byFrame, totalUs, idleUs };
}
