/**
 * Where the process is in its life, for the probes and for the gate every other route passes.
 *
 * The server listens before recovery so that `/livez` answers while a long log is replayed; until
 * the shards have recovered (and again once a stop has begun) every other route answers 503
 * `service_unavailable` with Retry-After, so nothing reaches a half-open runtime and nothing new is
 * accepted while draining.
 */
import { errorReply } from "./replies.js";
import type { HttpReply, HttpRoute } from "./route.js";

export type Phase = "starting" | "ready" | "stopping";

/** Why a request is refused while the shards recover, and while the service stops. */
export const STARTING_MESSAGE = "the service is starting: its logs are being recovered";
export const STOPPING_MESSAGE = "the service is stopping";

/** Seconds a client is told to wait before retrying a request refused by the gate. */
const RETRY_AFTER_SECONDS = "1";

/**
 * 503 `service_unavailable` with Retry-After: the gate's answer, and any component's that cannot
 * take a request for now (the cluster mode's identity log out of reach).
 */
export function serviceUnavailableReply(problem: string): HttpReply {
  const reply = errorReply("service_unavailable", problem);
  return { ...reply, headers: { ...reply.headers, "retry-after": RETRY_AFTER_SECONDS } };
}

export class Readiness {
  private phase: Phase = "starting";
  private notAccepting: () => readonly number[] = () => [];

  get current(): Phase {
    return this.phase;
  }

  /** Recovery finished: serve, as long as `notAccepting()` (shard indexes) stays empty. */
  ready(notAccepting: () => readonly number[]): void {
    if (this.phase !== "starting") return;
    this.notAccepting = notAccepting;
    this.phase = "ready";
  }

  stopping(): void {
    this.phase = "stopping";
  }

  /** Why the service is not ready, or undefined when it is. */
  problem(): string | undefined {
    if (this.phase === "starting") return STARTING_MESSAGE;
    if (this.phase === "stopping") return STOPPING_MESSAGE;
    const shards = this.notAccepting();
    if (shards.length > 0) return `shard${shards.length === 1 ? "" : "s"} ${shards.join(", ")} not accepting commands`;
    return undefined;
  }

  /** The 503 for a request that arrives while `problem()` says why it cannot be served. */
  unavailableReply(problem: string): HttpReply {
    return serviceUnavailableReply(problem);
  }

  /** `route` answering 503 until ready (and from the start of a stop). */
  gate(route: HttpRoute): HttpRoute {
    const handler = route.handler;
    return {
      ...route,
      handler: (request) => {
        const problem = this.problem();
        return problem === undefined ? handler(request) : this.unavailableReply(problem);
      },
    };
  }
}
