/**
 * The MCP tools (spec §4.3): names, what a model needs to use them, input and output schemas
 * generated from the HTTP layer's own types, and the call into the transport-neutral MarketApi.
 */
import type { IValidation } from "typia";
import type { ApiReply, MarketApi, MarketOperation } from "../api/market-api.js";
import * as generated from "../validation/generated/mcp.js";

export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown>;
  validate: (input: unknown) => IValidation<Record<string, unknown>>;
  run: (api: MarketApi, actorId: string, input: Record<string, unknown>) => Promise<ApiReply>;
}

const ERRORS_COMMON =
  "Failures come back as a tool result with isError true and text {\"error\":{\"code\",\"message\"}}: " +
  "invalid_request (bad input), authority_reference_required / delegation_not_found / delegation_inactive / " +
  "actor_not_authorized / principal_not_authorized (not allowed to act for that principal), " +
  "idempotency_conflict (commandId reused with other content)";

const IDEMPOTENCY =
  "Pass a fresh commandId per intended action; repeating a call with the same commandId and the same input returns the original result instead of acting twice.";

/** Strip the path id from a tool input: what remains is exactly the HTTP body. */
function split(input: Record<string, unknown>, idField: "marketId" | "commitmentId"): { id: string; body: Record<string, unknown> } {
  const { [idField]: id, ...body } = input;
  return { id: String(id), body };
}

function command(operation: MarketOperation, idField: "marketId" | "commitmentId" | undefined): ToolDefinition["run"] {
  return (api, actorId, input) => {
    if (idField === undefined) return api.execute(actorId, operation, "", input);
    const { id, body } = split(input, idField);
    return api.execute(actorId, operation, id, body);
  };
}

const validator = (v: (input: unknown) => IValidation<unknown>) => v as ToolDefinition["validate"];
const schema = (s: unknown) => s as Record<string, unknown>;

export const TOOLS: readonly ToolDefinition[] = [
  {
    name: "create_market",
    title: "Create a market (draft)",
    description:
      "Create a market as an inactive draft that will allocate `subject` to participants. mechanism.presetId is " +
      "\"direct-claim.v1\" (first-come claims; config {capacity ≥1, pricing {mode:\"free\"} or {mode:\"posted\", amountMinor ≥1, currency \"EUR\"-style}, " +
      "confirmation \"none\"|\"creator\"|\"participant\"|\"both\", holdDurationSeconds ≥1 unless confirmation is none}) or " +
      "\"sealed-forward-auction.v1\" (sealed second-price auction; config {currency, reserveAmountMinor?, closesAt (future RFC 3339 time), holdDurationSeconds ≥1}). " +
      "Returns the draft market (version 1) and its events; publish it with publish_market. " +
      `${IDEMPOTENCY} Errors: unknown_mechanism, invalid_mechanism_config, invalid_market_transition (id taken). ${ERRORS_COMMON}.`,
    inputSchema: schema(generated.createMarketInputSchema),
    outputSchema: schema(generated.marketResultSchema),
    validate: validator(generated.validateCreateMarketInput),
    run: command("market.create_draft", undefined),
  },
  {
    name: "publish_market",
    title: "Publish (open) a draft market",
    description:
      "Open a draft market so participants can claim or bid. Only the creator principal may publish; expectedVersion must be the draft's current version " +
      "(1 for a fresh draft); an auction must be published before its closesAt. " +
      `${IDEMPOTENCY} Errors: market_not_found, principal_not_authorized, version_conflict, invalid_market_transition. ${ERRORS_COMMON}.`,
    inputSchema: schema(generated.publishMarketInputSchema),
    outputSchema: schema(generated.marketResultSchema),
    validate: validator(generated.validatePublishMarketInput),
    run: command("market.publish", "marketId"),
  },
  {
    name: "submit_direct_claim",
    title: "Claim capacity in a direct-claim market",
    description:
      "Claim one unit of an open direct-claim.v1 market for principalId. Returns the market and the new commitment (its id is needed to confirm or decline). " +
      "Omit expectedVersion (or 0) to be ordered by arrival. " +
      `${IDEMPOTENCY} Errors: market_not_found, capacity_exhausted (nothing left), invalid_market_transition (draft, auction market, or the principal already holds a commitment), version_conflict, principal_not_authorized (the creator cannot claim). ${ERRORS_COMMON}.`,
    inputSchema: schema(generated.submitDirectClaimInputSchema),
    outputSchema: schema(generated.marketActionResultSchema),
    validate: validator(generated.validateSubmitDirectClaimInput),
    run: command("direct_claim.submit", "marketId"),
  },
  {
    name: "submit_sealed_bid",
    title: "Place a sealed bid in an auction",
    description:
      "Place principalId's one private bid (amountMinor in minor units, in the auction's currency) in an open sealed-forward-auction.v1 market before closesAt. " +
      "Bids cannot be replaced. The result holds an amount-free receipt; the amount is never shown while the auction is open. The highest eligible bid wins at the second price. " +
      `${IDEMPOTENCY} Errors: market_not_found, invalid_market_transition (not open, closed, second bid), invalid_command (currency mismatch), principal_not_authorized (the creator cannot bid). ${ERRORS_COMMON}.`,
    inputSchema: schema(generated.submitSealedBidInputSchema),
    outputSchema: schema(generated.marketActionResultSchema),
    validate: validator(generated.validateSubmitSealedBidInput),
    run: command("sealed_auction.submit_bid", "marketId"),
  },
  {
    name: "confirm_commitment",
    title: "Confirm a commitment",
    description:
      "Record principalId's confirmation of a commitment awaiting confirmations, before its expiresAt. It becomes committed once every principal in " +
      "requiredConfirmationPrincipalIds has confirmed. " +
      `${IDEMPOTENCY} Errors: commitment_not_found, principal_not_authorized (not a required principal), invalid_commitment_transition (already confirmed, expired, no longer awaiting). ${ERRORS_COMMON}.`,
    inputSchema: schema(generated.confirmCommitmentInputSchema),
    outputSchema: schema(generated.marketActionResultSchema),
    validate: validator(generated.validateConfirmCommitmentInput),
    run: command("commitment.confirm", "commitmentId"),
  },
  {
    name: "decline_commitment",
    title: "Decline a commitment",
    description:
      "Decline a commitment awaiting confirmations, before its expiresAt (the creator or the participant principal). A direct claim's capacity returns to the market; " +
      "in an auction the next eligible bid is promoted (see auctionResolution in the result). " +
      `${IDEMPOTENCY} Errors: commitment_not_found, principal_not_authorized, invalid_commitment_transition. ${ERRORS_COMMON}.`,
    inputSchema: schema(generated.declineCommitmentInputSchema),
    outputSchema: schema(generated.marketActionResultSchema),
    validate: validator(generated.validateDeclineCommitmentInput),
    run: command("commitment.decline", "commitmentId"),
  },
  {
    name: "get_market",
    title: "Read a market",
    description: "The current state of a market (any authenticated actor). Errors: market_not_found.",
    inputSchema: schema(generated.getMarketInputSchema),
    outputSchema: schema(generated.marketSchema),
    validate: validator(generated.validateGetMarketInput),
    run: (api, _actorId, input) => api.getMarket(String(input["marketId"])),
  },
  {
    name: "get_market_record",
    title: "Read a market's full record",
    description:
      "The market's full audit record: every command (accepted and rejected), event and commitment, with an integrity hash (sha256-canonical-json-v1). " +
      "Only the creator principal or the actor that created the market may read it. Errors: market_not_found, forbidden.",
    inputSchema: schema(generated.getMarketRecordInputSchema),
    outputSchema: schema(generated.marketRecordSchema),
    validate: validator(generated.validateGetMarketRecordInput),
    run: (api, actorId, input) => api.getRecord(actorId, String(input["marketId"])),
  },
  {
    name: "get_my_market_outcome",
    title: "Read my bids and commitments in a market",
    description:
      "Your own (or, with principalId + authorityRef, a principal you hold a delegation for) amount-free bid receipts and commitments in one market: " +
      "this is how an auction winner learns its commitment id after the close. Errors: market_not_found, delegation errors.",
    inputSchema: schema(generated.getMyMarketOutcomeInputSchema),
    outputSchema: schema(generated.marketOutcomeSchema),
    validate: validator(generated.validateGetMyMarketOutcomeInput),
    run: (api, actorId, input) =>
      api.getOutcome(
        actorId,
        String(input["marketId"]),
        input["principalId"] === undefined ? undefined : String(input["principalId"]),
        input["authorityRef"] === undefined ? undefined : String(input["authorityRef"]),
      ),
  },
];
