/**
 * typia template (not compiled directly): `npm run generate` turns it into
 * engine/validation/generated/bodies.ts. Every HTTP request body is validated strictly (unknown
 * members rejected) against the engine's own types.
 */
import typia from "typia";
import type { CommitmentActionBody, CreateMarketBody, DirectClaimBody, PublishMarketBody, SealedBidBody } from "@market-service/client/wire";

export const validateCreateMarketBody = typia.createValidateEquals<CreateMarketBody>();
export const validatePublishMarketBody = typia.createValidateEquals<PublishMarketBody>();
export const validateDirectClaimBody = typia.createValidateEquals<DirectClaimBody>();
export const validateSealedBidBody = typia.createValidateEquals<SealedBidBody>();
export const validateCommitmentActionBody = typia.createValidateEquals<CommitmentActionBody>();
