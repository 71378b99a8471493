/**
 * decide(state, command) → accepted events or a rejection. Pure: reads only its arguments, never
 * mutates them, never throws for a command it can receive (an exception is a bug).
 */
import { assertNever } from "./common/assert.js";
import { decideConfirm, decideDecline, decideExpire } from "./commitment/decide.js";
import type { Decision } from "./decision/decision.js";
import { decideDirectClaim } from "./direct-claim/decide.js";
import { decideCreateDraft, decidePublish } from "./market/decide.js";
import { decideResolve, decideSubmitBid } from "./sealed-auction/decide.js";
import type { MarketAggregate } from "./state/state.js";
import type { Command } from "./types/command.js";

export function decide(agg: MarketAggregate | undefined, command: Command): Decision {
  switch (command.type) {
    case "market.create_draft":
      return decideCreateDraft(agg, command);
    case "market.publish":
      return decidePublish(agg, command);
    case "direct_claim.submit":
      return decideDirectClaim(agg, command);
    case "sealed_auction.submit_bid":
      return decideSubmitBid(agg, command);
    case "sealed_auction.resolve":
      return decideResolve(agg, command);
    case "commitment.confirm":
      return decideConfirm(agg, command);
    case "commitment.decline":
      return decideDecline(agg, command);
    case "commitment.expire":
      return decideExpire(agg, command);
    default:
      return assertNever(command, "command type");
  }
}
