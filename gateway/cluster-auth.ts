/**
 * Cluster mode: a bearer token another node issued a moment ago may not have reached this node's
 * identity state yet (it arrives by the identity stream's tail). A request refused as
 * unauthenticated that carried a bearer token is therefore tried once more after this node has
 * applied everything the identity log held at that moment (bounded wait), so a client may take a
 * token from one node and use it on another at once. Refused requests are the only ones that wait;
 * on a single node this wrapper is not used at all.
 *
 * Re-running the handler is safe: authentication is the first thing every handler does, and a
 * handler that refused it has done nothing else.
 */
import type { IdentityStore } from "../engine/identity/store.js";
import { HttpError } from "./http/errors.js";
import type { HttpReply, HttpRequestContext, HttpRoute } from "./http/route.js";

/** How long a refused request waits for the identity log to be applied. */
const CATCH_UP_TIMEOUT_MS = 1_000;
/** Refused requests waiting at once beyond this are refused at once (a flood of bad tokens costs no more). */
const MAX_WAITING = 64;

export function retryUnknownTokens(identity: IdentityStore): (route: HttpRoute) => HttpRoute {
  let waiting = 0;
  const again = async (route: HttpRoute, request: HttpRequestContext, error: unknown): Promise<HttpReply> => {
    const refused = error instanceof HttpError && error.code === "unauthenticated";
    const bearer = /^bearer\s/i.test(request.headers.get("authorization") ?? "");
    if (!refused || !bearer || waiting >= MAX_WAITING) throw error;
    waiting += 1;
    let caughtUp: boolean;
    try {
      caughtUp = await identity.freshen(CATCH_UP_TIMEOUT_MS);
    } finally {
      waiting -= 1;
    }
    if (!caughtUp) throw error;
    return route.handler(request);
  };
  return (route) => ({
    ...route,
    handler: (request) => {
      let reply: Promise<HttpReply> | HttpReply;
      try {
        reply = route.handler(request);
      } catch (error) {
        return again(route, request, error);
      }
      return reply instanceof Promise ? reply.catch((error: unknown) => again(route, request, error)) : reply;
    },
  });
}
