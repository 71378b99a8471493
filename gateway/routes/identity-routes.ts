/** Spec §4.2: operator provisioning, delegations and their revocation. */
import { fail } from "../http/errors.js";
import type { HttpRoute } from "../http/route.js";
import type { IdentityStore } from "../../engine/identity/store.js";
import {
  validateIssueDelegationBody,
  validateProvisionIdentityBody,
  validateRevokeDelegationBody,
} from "../validation/generated/bodies.js";
import { validationMessage } from "../../engine/rules/validation/field-message.js";
import { identityToHttpReply, readJsonBody, requireActor, type RouteParts } from "./request-helpers.js";

export function identityRoutes(parts: RouteParts & { identity: IdentityStore }): HttpRoute[] {
  const routes: HttpRoute[] = [
    {
      method: "POST",
      pattern: "/v1/delegations",
      handler: async (request) => {
        const actor = requireActor(parts, request);
        const body = readJsonBody(request);
        const checked = validateIssueDelegationBody(body);
        if (!checked.success) fail("invalid_request", validationMessage(validateIssueDelegationBody, body, checked.errors));
        return identityToHttpReply(await parts.identity.issueDelegation(actor.actorId, checked.data));
      },
    },
    {
      method: "POST",
      pattern: "/v1/delegations/:delegationId/revoke",
      handler: async (request) => {
        const actor = requireActor(parts, request);
        const body = readJsonBody(request);
        const checked = validateRevokeDelegationBody(body);
        if (!checked.success) fail("invalid_request", validationMessage(validateRevokeDelegationBody, body, checked.errors));
        const delegationId = request.params["delegationId"] ?? "";
        return identityToHttpReply(await parts.identity.revokeDelegation(actor.actorId, delegationId, checked.data), { delegationNotFound: 404 });
      },
    },
  ];
  // Spec §4.2: "The endpoint is not mounted when the allowlist is empty."
  if (parts.auth.operatorsConfigured()) {
    routes.push({
      method: "POST",
      pattern: "/v1/admin/identities",
      handler: async (request) => {
        const actor = requireActor(parts, request);
        if (!parts.auth.isOperator(actor.actorId)) fail("forbidden", "only operator actors may provision identities");
        const body = readJsonBody(request);
        const checked = validateProvisionIdentityBody(body);
        if (!checked.success) fail("invalid_request", validationMessage(validateProvisionIdentityBody, body, checked.errors));
        return identityToHttpReply(await parts.identity.provisionIdentity(actor.actorId, checked.data));
      },
    });
  }
  return routes;
}
