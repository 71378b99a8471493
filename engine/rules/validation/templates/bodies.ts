/**
 * typia template (not compiled directly): `npm run generate` turns it into
 * engine/rules/validation/generated/bodies.ts. Every HTTP request body is validated strictly (unknown
 * members rejected) against the client's wire types (packages/client/src/wire/), the one
 * declaration of each shape. A market's mechanism is validated as an open
 * envelope (UncheckedCreateMarketBody), so that the engine, not this validator, answers an unknown
 * preset or a config that does not fit it, with the spec's 422 codes.
 */
import typia from "typia";
import type { CommitmentActionBody, DirectClaimBody, PublishMarketBody, SealedBidBody, UncheckedCreateMarketBody } from "@market-service/client/wire";

export const validateCreateMarketBody = typia.createValidateEquals<UncheckedCreateMarketBody>();
export const validatePublishMarketBody = typia.createValidateEquals<PublishMarketBody>();
export const validateDirectClaimBody = typia.createValidateEquals<DirectClaimBody>();
export const validateSealedBidBody = typia.createValidateEquals<SealedBidBody>();
export const validateCommitmentActionBody = typia.createValidateEquals<CommitmentActionBody>();
