/**
 * A fetch over node:http whose idle keep-alive connections the test can close from the client's
 * side. The restart test needs it: a service that stops while a client's idle connection is open
 * closes that connection first, and the closing side keeps the port's TIME_WAIT. The test's first
 * service was started on port 0, and uSockets sets SO_REUSEADDR only when it binds a given port, so
 * that TIME_WAIT socket does not allow reuse and the service started again on the same port cannot
 * listen until it expires. A service started on a fixed port (as deployed) binds with SO_REUSEADDR
 * and restarts at once (checked by hand on this machine). Closing from the client first leaves the
 * TIME_WAIT with the client.
 */
import { Agent, request } from "node:http";

export interface ClosingFetch {
  fetch: typeof fetch;
  /** Close every idle connection from the client's side. */
  closeIdle(): void;
}

export function closingFetch(): ClosingFetch {
  const agent = new Agent({ keepAlive: true });
  const fetchImpl = (async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(typeof input === "string" || input instanceof URL ? input : input.url);
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, name) => (headers[name] = value));
    const body = typeof init?.body === "string" ? init.body : undefined;
    return new Promise<Response>((resolve, reject) => {
      const outgoing = request(url, { method: init?.method ?? "GET", headers, agent }, (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
        incoming.on("end", () => {
          const replyHeaders = new Headers();
          for (const [name, value] of Object.entries(incoming.headers)) if (typeof value === "string") replyHeaders.set(name, value);
          resolve(new Response(Buffer.concat(chunks), { status: incoming.statusCode ?? 0, headers: replyHeaders }));
        });
        incoming.on("error", reject);
      });
      // fetch wraps a socket error as the cause of a TypeError("fetch failed"); so does this.
      outgoing.on("error", (error) => reject(new TypeError("fetch failed", { cause: error })));
      outgoing.end(body);
    });
  }) as typeof fetch;
  return {
    fetch: fetchImpl,
    closeIdle: () => {
      for (const sockets of Object.values(agent.freeSockets)) for (const socket of sockets ?? []) socket.destroy();
    },
  };
}
