/**
 * Why `market-service provision` was refused, in words that say what exists and what to do. The
 * service's reply is an error code and a message; for `identity_conflict` the only lookup the spec
 * offers (`POST /v1/auth/challenges`, which answers 201 only for an active actor with that key)
 * tells an existing identity with these very ids apart from a key id that another actor holds.
 */
import type { MarketClient } from "./market-client.js";
import { MarketServiceError } from "./service-error.js";

export interface ProvisionIds {
  principalId: string;
  actorId: string;
  keyId: string;
  operatorActorId: string;
}

/** `principal "alice"`, `actor "bob"`, `key "k1"`: the first id the service found bound elsewhere. */
const CONFLICT = /^(principal|actor|key) "(.*)" is already bound to different key material$/;

async function actorHasKey(client: MarketClient, actorId: string, keyId: string): Promise<boolean> {
  try {
    await client.createChallenge({ actorId, keyId });
    return true;
  } catch (error) {
    // A refusal says no; no answer at all says nothing.
    if (error instanceof MarketServiceError && error.code !== "unreachable") return false;
    throw error;
  }
}

async function explainConflict(client: MarketClient, ids: ProvisionIds, serviceMessage: string): Promise<string> {
  const ask = `principal ${JSON.stringify(ids.principalId)}, actor ${JSON.stringify(ids.actorId)}, key ${JSON.stringify(ids.keyId)}`;
  const once = "an identity is provisioned once and keys are not rotated";
  const which = CONFLICT.exec(serviceMessage)?.[1];
  if (which === "key" && (await actorHasKey(client, ids.actorId, ids.keyId))) {
    return (
      `principal ${JSON.stringify(ids.principalId)} already exists with actor ${JSON.stringify(ids.actorId)} and key ${JSON.stringify(ids.keyId)}, ` +
      `provisioned earlier with another key pair (its private key is in the identity file written then); ${once}: ` +
      "keep using that file, or provision another --principal"
    );
  }
  if (which === "key") return `key id ${JSON.stringify(ids.keyId)} already belongs to another actor: choose another --key-id (asked for ${ask})`;
  if (which === "actor") {
    return `actor ${JSON.stringify(ids.actorId)} already exists, under another principal or with another key: choose another --actor (asked for ${ask})`;
  }
  if (which === "principal") {
    return `principal ${JSON.stringify(ids.principalId)} already exists, with another actor or key than asked (${ask}); ${once}: choose another --principal`;
  }
  return `the identity conflicts with one that exists (${serviceMessage}); ${once}`;
}

/** A sentence for the person at the terminal; falls back to the service's own words. */
export async function explainProvisionRefusal(client: MarketClient, ids: ProvisionIds, error: MarketServiceError): Promise<string> {
  const operator = JSON.stringify(ids.operatorActorId);
  switch (error.code) {
    case "identity_conflict":
      return explainConflict(client, ids, error.serviceMessage);
    case "unauthenticated":
      return (
        `${client.baseUrl} refused the operator credentials of actor ${operator} (request authentication failed): check ` +
        "--operator-secret-file (or SERVICE_HMAC_ACTOR and SERVICE_HMAC_SECRET), and that this machine's clock is right"
      );
    case "forbidden":
      return `actor ${operator} is not an operator on ${client.baseUrl}: the service's SERVICE_OPERATOR_ACTORS must list it`;
    case "not_found":
      return `${client.baseUrl} provisions no identities: it has no operators (SERVICE_OPERATOR_ACTORS is empty and no bootstrap operator exists)`;
    case "invalid_request":
    case "invalid_command":
      return `${client.baseUrl} refused the ids: ${error.serviceMessage}`;
    default:
      return error.message;
  }
}
