/**
 * What a storm checks afterwards, from the service itself (bench/README.md, "The storm driver"):
 * no 5xx and no connection error, the allocation against the accepted replies the driver counted,
 * and a market's record holding every claim with its recordHash recomputed. Shared by the storm
 * (run-storm.ts) and the cluster bench (bench/cluster.bench.ts), whose requests go to several nodes.
 */
import canonicalize from "canonicalize";
import { createHash } from "node:crypto";
import { transportFailures, type WrkResult } from "./processes.js";
import type { ScenarioResult } from "./report.js";
import type { Setup } from "./setup.js";

export type Check = ScenarioResult["checks"][number];

/** Where a check reads from: a service's client and the storm creator's token. */
export type CheckTarget = Pick<Setup, "client" | "creatorToken">;

export function transportChecks(result: WrkResult): Check[] {
  const { fiveHundreds, connectionErrors } = transportFailures(result);
  return [
    { name: "no 5xx", ok: fiveHundreds === 0, detail: `${fiveHundreds} responses ≥ 500` },
    { name: "no connection errors", ok: connectionErrors === 0, detail: `connect ${result.connectErrors}, read ${result.readErrors}, write ${result.writeErrors}, timeout ${result.timeouts}` },
  ];
}

/** Requests the driver got an answer to, of any status. */
export const answered = (result: WrkResult): number => Object.values(result.statuses).reduce((a, b) => a + b, 0);

/**
 * A market's record from the service: every claim recorded, hash verified independently.
 * `inFlight`: requests that may have been sent but not answered when the driver stopped (its connections).
 */
export async function recordChecks(target: CheckTarget, marketId: string, expectedAccepted: number, sentToMarket: number, inFlight: number): Promise<Check[]> {
  const record = await target.client.request("GET", `/v1/markets/${marketId}/record`, { credentials: { kind: "bearer", token: target.creatorToken } });
  if (record.status !== 200) return [{ name: "record readable", ok: false, detail: `${record.status} ${record.text.slice(0, 200)}` }];
  const claims = (record.body.commands as Array<{ type: string; status: string }>).filter((c) => c.type === "direct_claim.submit");
  const accepted = claims.filter((c) => c.status === "accepted").length;
  const { integrity, ...view } = record.body as { integrity: { recordHash: string; stateReconstructed: boolean } };
  const recomputed = `sha256:${createHash("sha256").update(canonicalize(view) ?? "", "utf8").digest("hex")}`;
  const allocatedAfter = await allocatedOf(target, marketId);
  return [
    {
      name: "record holds every request sent",
      ok: claims.length >= sentToMarket && claims.length <= sentToMarket + inFlight,
      detail: `${claims.length} claims recorded, ${sentToMarket} answered to the driver (+ ≤ ${inFlight} in flight at the deadline)`,
    },
    {
      // Claims still in flight when the driver stopped may commit between the reads: the record, read
      // after the allocation, holds at least what was allocated then and at most what is allocated now.
      name: "record's accepted claims = allocated",
      ok: accepted >= expectedAccepted && accepted <= allocatedAfter,
      detail: `${accepted} accepted in the record, ${expectedAccepted} allocated before it was read${allocatedAfter === expectedAccepted ? "" : ` and ${allocatedAfter} after`}`,
    },
    { name: "recordHash verifies (RFC 8785 + SHA-256, recomputed here)", ok: recomputed === integrity.recordHash, detail: integrity.recordHash },
    { name: "stateReconstructed", ok: integrity.stateReconstructed, detail: String(integrity.stateReconstructed) },
  ];
}

export async function allocatedOf(target: CheckTarget, marketId: string): Promise<number> {
  const market = await target.client.request("GET", `/v1/markets/${marketId}`, { credentials: { kind: "bearer", token: target.creatorToken } });
  return market.body?.mechanismState?.allocated as number;
}
