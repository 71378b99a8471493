/**
 * typia template (not compiled directly): `npm run generate` turns it into
 * gateway/validation/generated/mcp.ts — strict validators and JSON Schemas for the MCP tools, from
 * the same types the HTTP layer validates with. create_market's schema shows the mechanism a client
 * writes (one preset with its config); its input is validated, as POST /v1/markets is, with the
 * mechanism left open (UncheckedCreateMarketBody), so the engine answers a wrong preset or config
 * with unknown_mechanism or invalid_mechanism_config.
 */
import typia from "typia";
import type {
  ConfirmCommitmentInput,
  CreateMarketInput,
  DeclineCommitmentInput,
  GetMarketInput,
  GetMarketRecordInput,
  GetMyMarketOutcomeInput,
  PublishMarketInput,
  SubmitDirectClaimInput,
  SubmitSealedBidInput,
} from "../tool-inputs.js";
import type { Market, MarketActionResult, MarketOutcome, MarketRecord, MarketResult, UncheckedCreateMarketBody } from "@market-service/client/wire";

export const validateCreateMarketInput = typia.createValidateEquals<UncheckedCreateMarketBody>();
export const validatePublishMarketInput = typia.createValidateEquals<PublishMarketInput>();
export const validateSubmitDirectClaimInput = typia.createValidateEquals<SubmitDirectClaimInput>();
export const validateSubmitSealedBidInput = typia.createValidateEquals<SubmitSealedBidInput>();
export const validateConfirmCommitmentInput = typia.createValidateEquals<ConfirmCommitmentInput>();
export const validateDeclineCommitmentInput = typia.createValidateEquals<DeclineCommitmentInput>();
export const validateGetMarketInput = typia.createValidateEquals<GetMarketInput>();
export const validateGetMarketRecordInput = typia.createValidateEquals<GetMarketRecordInput>();
export const validateGetMyMarketOutcomeInput = typia.createValidateEquals<GetMyMarketOutcomeInput>();

export const createMarketInputSchema = typia.llm.parameters<CreateMarketInput>();
export const publishMarketInputSchema = typia.llm.parameters<PublishMarketInput>();
export const submitDirectClaimInputSchema = typia.llm.parameters<SubmitDirectClaimInput>();
export const submitSealedBidInputSchema = typia.llm.parameters<SubmitSealedBidInput>();
export const confirmCommitmentInputSchema = typia.llm.parameters<ConfirmCommitmentInput>();
export const declineCommitmentInputSchema = typia.llm.parameters<DeclineCommitmentInput>();
export const getMarketInputSchema = typia.llm.parameters<GetMarketInput>();
export const getMarketRecordInputSchema = typia.llm.parameters<GetMarketRecordInput>();
export const getMyMarketOutcomeInputSchema = typia.llm.parameters<GetMyMarketOutcomeInput>();

export const marketResultSchema = typia.llm.parameters<MarketResult>();
export const marketActionResultSchema = typia.llm.parameters<MarketActionResult>();
export const marketSchema = typia.llm.parameters<Market>();
export const marketRecordSchema = typia.llm.parameters<MarketRecord>();
export const marketOutcomeSchema = typia.llm.parameters<MarketOutcome>();
