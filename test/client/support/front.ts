/**
 * A tiny HTTP server in front of the real service, for the one case the service cannot be made to
 * answer on demand: a 503 or 429 with Retry-After to a request that then reaches the service. Each
 * request is either refused as `refuse` says, or forwarded to the service as is (method, target,
 * headers, body bytes) with its reply passed back as is. Every request's body is kept, so a test can
 * compare what the client sent on each attempt.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface Refusal {
  status: 503 | 429;
  retryAfter?: string;
}

export interface Front {
  url: string;
  /** Every request's method, target and body, in arrival order. */
  readonly seen: Array<{ method: string; target: string; body: string }>;
  close(): Promise<void>;
}

function bodyOf(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks)));
    request.on("error", reject);
  });
}

/** `refuse(n)` for the n-th request (from 1): a refusal, or undefined to forward it to `serviceUrl`. */
export async function startFront(serviceUrl: string, refuse: (n: number) => Refusal | undefined): Promise<Front> {
  const seen: Front["seen"] = [];
  const server: Server = createServer((request, response) => {
    void (async () => {
      const body = await bodyOf(request);
      seen.push({ method: request.method ?? "", target: request.url ?? "", body: body.toString("utf8") });
      const refusal = refuse(seen.length);
      if (refusal !== undefined) {
        const headers: Record<string, string> = { "content-type": "application/json" };
        if (refusal.retryAfter !== undefined) headers["retry-after"] = refusal.retryAfter;
        const code = refusal.status === 503 ? "service_unavailable" : "too_many_requests";
        response.writeHead(refusal.status, headers).end(JSON.stringify({ error: { code, message: "come back later" } }));
        return;
      }
      const headers = new Headers();
      for (const [name, value] of Object.entries(request.headers)) {
        if (typeof value === "string" && name !== "host" && name !== "content-length" && name !== "connection") headers.set(name, value);
      }
      const reply = await fetch(`${serviceUrl}${request.url ?? ""}`, { method: request.method ?? "GET", headers, ...(body.length === 0 ? {} : { body }) });
      const out: Record<string, string> = {};
      reply.headers.forEach((value, name) => {
        if (name !== "content-length" && name !== "transfer-encoding" && name !== "connection") out[name] = value;
      });
      response.writeHead(reply.status, out).end(Buffer.from(await reply.arrayBuffer()));
    })().catch((error: unknown) => {
      response.writeHead(502).end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
