/**
 * The storage the service keeps markets in (rules/state/store.ts's MarketStorage): commitments as rows in a
 * typed array with participant ids in an arena (commitment-table.ts), principals in an
 * open-addressing index that reads its keys from those rows (principal-index.ts).
 */
import { assert, assertNever } from "../rules/common/assert.js";
import type { MarketStorage, PrincipalSet, PrincipalSource } from "../rules/state/store.js";
import { DIRECT_CLAIM_PRESET, SEALED_AUCTION_PRESET } from "@market-service/client/wire";
import { CommitmentTable } from "./commitment-table.js";
import { PrincipalIndex, stringKeys } from "./principal-index.js";

function principals(source: PrincipalSource): PrincipalSet {
  const presetId = source.presetId;
  switch (presetId) {
    case DIRECT_CLAIM_PRESET: {
      const table = source.commitments;
      assert(table instanceof CommitmentTable, "a market's commitments come from the same storage");
      const index = new PrincipalIndex(table, table.count);
      for (let i = 0; i < table.count; i += 1) {
        const state = table.state(i);
        if (state === "awaiting_confirmations" || state === "committed") index.addStored(i + 1);
      }
      return index;
    }
    case SEALED_AUCTION_PRESET: {
      const bids = source.bids;
      const index = new PrincipalIndex(stringKeys((ordinal) => (bids[ordinal - 1] as { principalId: string }).principalId), bids.length);
      bids.forEach((bid, i) => index.add(bid.principalId, i + 1));
      return index;
    }
    default:
      return assertNever(presetId, "mechanism preset");
  }
}

/** The last time text a market kept: the markets of one batch (one server time) share it. */
let lastKeptTime = "";

function keptTime(text: string): string {
  if (text !== lastKeptTime) lastKeptTime = text;
  return lastKeptTime;
}

export const tableStorage: MarketStorage = {
  newCommitments: () => new CommitmentTable(),
  principals,
  keptTime,
};
