/** Spec §4.2 / §5.1: the unauthenticated challenge → token flow. */
import { fail } from "../http/errors.js";
import type { HttpRoute } from "../http/route.js";
import { validateCreateChallengeBody, validateIssueTokenBody } from "../validation/generated/bodies.js";
import { validationMessage } from "../validation/messages.js";
import { identityToHttpReply, readJsonBody, type RouteParts } from "./request-helpers.js";

export function authRoutes(parts: RouteParts): HttpRoute[] {
  return [
    {
      method: "POST",
      pattern: "/v1/auth/challenges",
      handler: (request) => {
        const checked = validateCreateChallengeBody(readJsonBody(request));
        if (!checked.success) fail("invalid_request", validationMessage(checked.errors));
        return identityToHttpReply(parts.auth.createChallenge(checked.data, parts.clock.nowMs()));
      },
    },
    {
      method: "POST",
      pattern: "/v1/auth/tokens",
      handler: async (request) => {
        const checked = validateIssueTokenBody(readJsonBody(request));
        if (!checked.success) fail("invalid_request", validationMessage(checked.errors));
        return identityToHttpReply(await parts.auth.issueToken(checked.data, parts.clock.nowMs()));
      },
    },
  ];
}
