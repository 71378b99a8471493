/**
 * typia template (not compiled directly): `npm run generate` turns it into
 * gateway/validation/generated/bodies.ts. The identity and authentication request bodies, validated
 * strictly (unknown members rejected) against their declarations in packages/client/src/wire/identity.ts.
 */
import typia from "typia";
import type {
  CreateChallengeBody,
  IssueDelegationBody,
  IssueTokenBody,
  ProvisionIdentityBody,
  RevokeDelegationBody,
} from "@market-service/client/wire";

export const validateProvisionIdentityBody = typia.createValidateEquals<ProvisionIdentityBody>();
export const validateIssueDelegationBody = typia.createValidateEquals<IssueDelegationBody>();
export const validateRevokeDelegationBody = typia.createValidateEquals<RevokeDelegationBody>();
export const validateCreateChallengeBody = typia.createValidateEquals<CreateChallengeBody>();
export const validateIssueTokenBody = typia.createValidateEquals<IssueTokenBody>();
