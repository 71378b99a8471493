/**
 * typia template (not compiled directly): `npm run generate` turns it into
 * engine/rules/validation/generated/mechanism-config.ts, plain TypeScript with no transform needed.
 */
import typia from "typia";
import type { DirectClaimConfigInput, SealedAuctionConfig } from "@market-service/client/wire";

export const validateDirectClaimConfig = typia.createValidateEquals<DirectClaimConfigInput>();
export const validateSealedAuctionConfig = typia.createValidateEquals<SealedAuctionConfig>();
