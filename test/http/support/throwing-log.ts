/** A server whose injected logger throws on every call. */
import { createHttpServer, type HttpServer } from "../../../gateway/http/index.js";

export async function startTestServerWithLog(): Promise<{ server: HttpServer; port: number }> {
  const server = createHttpServer({
    log: () => {
      throw new Error("logger is broken");
    },
    routes: [
      { method: "GET", pattern: "/healthz", handler: () => ({ status: 200, body: { status: "ok" } }) },
      {
        method: "POST",
        pattern: "/throw",
        handler: async () => {
          throw new Error("boom");
        },
      },
    ],
  });
  const port = await server.listen("127.0.0.1", 0);
  return { server, port };
}
