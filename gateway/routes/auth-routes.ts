/** Spec §4.2 / §5.1: the unauthenticated challenge → token flow. */
import { fail } from "../http/errors.js";
import type { HttpRoute } from "../http/route.js";
import { validateCreateChallengeBody, validateIssueTokenBody } from "../validation/generated/bodies.js";
import { validationMessage } from "../../engine/rules/validation/field-message.js";
import { identityToHttpReply, readJsonBody, type RouteParts } from "./request-helpers.js";

export function authRoutes(parts: RouteParts): HttpRoute[] {
  return [
    {
      method: "POST",
      pattern: "/v1/auth/challenges",
      handler: async (request) => {
        const body = readJsonBody(request);
        const checked = validateCreateChallengeBody(body);
        if (!checked.success) fail("invalid_request", validationMessage(validateCreateChallengeBody, body, checked.errors));
        return identityToHttpReply(await parts.auth.createChallenge(checked.data, parts.clock.nowMs()));
      },
    },
    {
      method: "POST",
      pattern: "/v1/auth/tokens",
      handler: async (request) => {
        const body = readJsonBody(request);
        const checked = validateIssueTokenBody(body);
        if (!checked.success) fail("invalid_request", validationMessage(validateIssueTokenBody, body, checked.errors));
        return identityToHttpReply(await parts.auth.issueToken(checked.data, parts.clock.nowMs()));
      },
    },
  ];
}
