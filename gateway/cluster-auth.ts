/**
 * Cluster mode: an identity another node wrote a moment ago (a bearer token it issued, an actor and
 * key it provisioned) may not have reached this node's identity state yet: it arrives by the
 * identity stream's tail. `IdentityCatchUp` waits, bounded, until this node has applied everything
 * the identity log held at that moment; what was refused for not being known is then looked up
 * once more. Two users, sharing one bound on how many wait at once:
 *
 * - `retryUnknownTokens`: a request refused as unauthenticated that carried a bearer token is
 *   tried once more after catching up, so a client may take a token from one node and use it on
 *   another at once. Re-running the handler is safe: authentication is the first thing every
 *   handler does, and a handler that refused it has done nothing else.
 * - sign-in (gateway/auth/ed25519-proof.ts, `catchUp`): a challenge asked for an actor provisioned
 *   a moment ago on another node, or redeemed at a node that has not seen that actor yet.
 *
 * Refused requests are the only ones that wait; on a single node none of this is used.
 */
import type { IdentityStore } from "../engine/identity/store.js";
import { HttpError } from "./http/errors.js";
import type { HttpReply, HttpRequestContext, HttpRoute } from "./http/route.js";

/** How long a refused request waits for the identity log to be applied. */
const CATCH_UP_TIMEOUT_MS = 1_000;
/** Requests waiting at once beyond this are not made to wait (a flood of bad credentials costs no more). */
const MAX_WAITING = 64;

export class IdentityCatchUp {
  private waiting = 0;

  constructor(private readonly identity: Pick<IdentityStore, "freshen">) {}

  /** True once this node has applied what the identity log holds now; false if it could not (in time, or too many wait). */
  async wait(): Promise<boolean> {
    if (this.waiting >= MAX_WAITING) return false;
    this.waiting += 1;
    try {
      return await this.identity.freshen(CATCH_UP_TIMEOUT_MS);
    } finally {
      this.waiting -= 1;
    }
  }
}

export function retryUnknownTokens(catchUp: IdentityCatchUp): (route: HttpRoute) => HttpRoute {
  const again = async (route: HttpRoute, request: HttpRequestContext, error: unknown): Promise<HttpReply> => {
    const refused = error instanceof HttpError && error.code === "unauthenticated";
    const bearer = /^bearer\s/i.test(request.headers.get("authorization") ?? "");
    if (!refused || !bearer) throw error;
    if (!(await catchUp.wait())) throw error;
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
