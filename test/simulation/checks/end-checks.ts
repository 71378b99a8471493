/**
 * What must hold once every fault has healed and every command has its answer:
 *
 * - every market's record and recordHash, read from every node (forwarded to the owner, rendered by
 *   the same replay as in production), equal the record rebuilt from the stream, and so does the
 *   market each node reads;
 * - every node's identity state, once it caught up with the identity stream, is the stream's fold;
 * - every deadline fired: no auction left open and no hold left awaiting past its instant (and, from
 *   the stream auditor, none fired twice);
 * - no market holds more than its capacity, and no principal two places in one market.
 */
import { buildMarketRecord } from "../../../engine/record.js";
import { pendingDeadlines } from "../../../engine/rules/deadlines.js";
import { commitmentsOf, snapshotMarket } from "../../../engine/rules/state/state.js";
import { DIRECT_CLAIM_PRESET } from "@market-service/client/wire";
import { jsonText, okReply, type ShardReply } from "../../../engine/shard-protocol/shard-protocol.js";
import type { IdentityState } from "../../../engine/identity/index.js";
import { UnavailableError } from "../../../engine/runtime/unavailable.js";
import type { SimNode } from "../node/sim-node.js";
import type { FoldedMarket, StreamAuditor } from "./stream-auditor.js";
import type { Violations } from "./violations.js";

const ACTIVE_STATES = new Set(["provisional", "awaiting_confirmations", "committed"]);

/** Capacity and one place per principal, in the state the stream folds to. */
export function checkAllocations(auditor: StreamAuditor, violations: Violations): void {
  for (const [marketId, { agg }] of auditor.markets) {
    if (agg.market.mechanism.presetId !== DIRECT_CLAIM_PRESET) continue;
    const active = commitmentsOf(agg).filter((commitment) => ACTIVE_STATES.has(commitment.state));
    const capacity = agg.market.mechanism.config.capacity;
    if (active.length > capacity) violations.report(`market ${marketId} holds ${active.length} active commitments, over its capacity ${capacity}`);
    const principals = active.map((commitment) => commitment.participantPrincipalId);
    const twice = principals.find((principal, i) => principals.indexOf(principal) !== i);
    if (twice !== undefined) violations.report(`principal ${twice} holds two places in market ${marketId}`);
  }
}

/** Every deadline due `slackMs` before `nowMs` (epoch ms, true time) has fired. */
export function checkDeadlines(auditor: StreamAuditor, violations: Violations, nowMs: number, slackMs: number): void {
  for (const [marketId, { agg }] of auditor.markets) {
    for (const deadline of pendingDeadlines(agg)) {
      if (deadline.atMs < nowMs - slackMs) {
        violations.report(`market ${marketId}: ${deadline.kind === "auction_close" ? "the auction's close" : `the expiry of ${deadline.commitmentId}`} was due at ${new Date(deadline.atMs).toISOString()} and never fired`);
      }
    }
  }
}

function expectedRecord(market: FoldedMarket): string {
  return JSON.stringify(buildMarketRecord(market.commands, market.agg));
}

/** An identity state as text (tokens left out: the workload issues none), maps in key order. */
function identityText(state: IdentityState): string {
  const sorted = <V>(map: ReadonlyMap<string, V>): Array<[string, V]> => [...map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify({
    principals: sorted(state.principals),
    actors: sorted(state.actors),
    keys: sorted(state.keys),
    keyIdByPublicKey: sorted(state.keyIdByPublicKey),
    delegations: sorted(state.delegations),
  });
}

/** How long a node's identity store may take to catch up with the stream before its state is compared. */
const IDENTITY_CATCH_UP_MS = 5_000;

/**
 * Attempts at each read (the caller retries every 300 ms): enough to outlast what a heal leaves
 * running, a leader election of the lease bucket (up to 8 s; a lapsed lease refuses reads) and the
 * next lease round after it (simulation, seed 5472: 20 attempts gave up 0.2 s after the election).
 */
const READ_ATTEMPTS = 80;

/** Where two texts first differ. */
function firstDifference(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i += 1;
  return i;
}

/** `text` around where it first differs from `other`: enough to see what differs. */
function around(text: string, other: string): string {
  const at = firstDifference(text, other);
  const from = Math.max(0, at - 160);
  return `${from > 0 ? "…" : ""}${text.slice(from, at + 240)}${at + 240 < text.length ? "…" : ""}`;
}

/**
 * Reads every market's record and state through every serving node and compares them with the
 * stream's; a read answered 503 is tried again (`attempts` in all). Resolves when every read is done.
 */
export async function checkReads(auditor: StreamAuditor, nodes: readonly SimNode[], violations: Violations, retry: (run: () => void) => void, attempts = READ_ATTEMPTS): Promise<void> {
  const reads: Array<Promise<void>> = [];
  const read = (node: SimNode, what: string, run: () => Promise<ShardReply>, expected: string): Promise<void> =>
    new Promise((resolve) => {
      let left = attempts;
      const once = (): void => {
        left -= 1;
        const runtime = node.runtime;
        if (runtime === undefined) {
          resolve();
          return;
        }
        run().then(
          (reply) => {
            const text = reply.ok ? jsonText(reply.json) : `${reply.code}: ${reply.message}`;
            if (text !== expected) violations.report(`${node.name} reads ${what} otherwise than the stream, from character ${firstDifference(text, expected)}:\n  read   ${around(text, expected)}\n  stream ${around(expected, text)}`);
            resolve();
          },
          (error: unknown) => {
            if (left <= 0) violations.report(`${node.name} could not read ${what} after every fault healed: ${error instanceof Error ? error.message : String(error)}`);
            if (left <= 0) resolve();
            else retry(once);
          },
        );
      };
      once();
    });
  const identity = identityText(auditor.identity);
  for (const node of nodes) {
    const store = node.identity;
    if (store === undefined) continue;
    const caughtUp = async (): Promise<ShardReply> => {
      if (!(await store.freshen(IDENTITY_CATCH_UP_MS))) throw new UnavailableError("the identity store did not catch up with the stream");
      return okReply(identityText(store.state));
    };
    reads.push(read(node, "its identity state", caughtUp, identity));
  }
  for (const [marketId, market] of auditor.markets) {
    const creator = market.agg.market.creator.actorId;
    for (const node of nodes) {
      if (node.runtime === undefined) continue;
      reads.push(read(node, `the record of ${marketId}`, () => (node.runtime as NonNullable<SimNode["runtime"]>).readRecord(marketId, creator), expectedRecord(market)));
      reads.push(read(node, `market ${marketId}`, () => (node.runtime as NonNullable<SimNode["runtime"]>).readMarket(marketId), JSON.stringify(snapshotMarket(market.agg.market))));
    }
  }
  await Promise.all(reads);
}
