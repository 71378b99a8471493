/**
 * A real server on 127.0.0.1:0 with dummy routes exercising every path of the HTTP layer, plus a
 * log recorder and "gates" that let a test hold a handler open and release it (no sleeps).
 */
import { createHttpServer, fail, type HttpLimits, type HttpRoute, type HttpServer, type LogLevel, parseStrictJson } from "../../../gateway/http/index.js";
import type { ResponseInfo } from "../../../gateway/http/route.js";

export interface LogEntry {
  level: LogLevel;
  message: string;
  fields: Readonly<Record<string, unknown>>;
}

/** A promise a test resolves by hand, keyed by name. */
export class Gates {
  private readonly gates = new Map<string, { promise: Promise<void>; open: () => void; entered: () => void; enteredPromise: Promise<void> }>();

  private gate(key: string) {
    let gate = this.gates.get(key);
    if (gate === undefined) {
      let open!: () => void;
      let entered!: () => void;
      const promise = new Promise<void>((resolve) => (open = resolve));
      const enteredPromise = new Promise<void>((resolve) => (entered = resolve));
      gate = { promise, open, entered, enteredPromise };
      this.gates.set(key, gate);
    }
    return gate;
  }

  /** Called by a handler: marks the gate entered and waits for it to open. */
  wait(key: string): Promise<void> {
    const gate = this.gate(key);
    gate.entered();
    return gate.promise;
  }

  /** Resolves once a handler is waiting at the gate. */
  entered(key: string): Promise<void> {
    return this.gate(key).enteredPromise;
  }

  open(key: string): void {
    this.gate(key).open();
  }
}

export interface TestServer {
  server: HttpServer;
  port: number;
  base: string;
  logs: LogEntry[];
  gates: Gates;
  /** How many times each route's handler ran. */
  calls: Map<string, number>;
  /** Replies the handlers of `/slow/:key` produced after their gate opened. */
  finished: string[];
  /** What the server reported to its `onResponse` observer (access log and metrics), in order. */
  responses: ResponseInfo[];
  /** Resolves once a reported response matches (the report is an event; bounded by the test's timeout). */
  reported(match: (info: ResponseInfo) => boolean): Promise<ResponseInfo>;
}

export interface TestServerOptions {
  limits?: Partial<HttpLimits>;
}

export async function startTestServer(extraRoutes: HttpRoute[] = [], options: TestServerOptions = {}): Promise<TestServer> {
  const logs: LogEntry[] = [];
  const gates = new Gates();
  const calls = new Map<string, number>();
  const finished: string[] = [];
  const responses: ResponseInfo[] = [];
  const waiters: { match: (info: ResponseInfo) => boolean; resolve: (info: ResponseInfo) => void }[] = [];
  const reported = (match: (info: ResponseInfo) => boolean): Promise<ResponseInfo> => {
    const found = responses.find(match);
    if (found !== undefined) return Promise.resolve(found);
    return new Promise((resolve) => waiters.push({ match, resolve }));
  };
  const count = (route: string): void => {
    calls.set(route, (calls.get(route) ?? 0) + 1);
  };
  const routes: HttpRoute[] = [
    { method: "GET", pattern: "/healthz", handler: () => ({ status: 200, body: { status: "ok" } }) },
    {
      method: "POST",
      pattern: "/echo",
      handler: async (request) => {
        count("/echo");
        const parsed = parseStrictJson(request.bodyBytes);
        if (!parsed.ok) fail("invalid_request", parsed.message);
        return { status: 200, body: parsed.value };
      },
    },
    {
      method: "POST",
      pattern: "/bytes",
      handler: async (request) => {
        count("/bytes");
        return { status: 200, body: { length: request.bodyBytes.length, first: request.bodyBytes[0] ?? null } };
      },
    },
    {
      method: "POST",
      pattern: "/small",
      maxBodyBytes: 16,
      handler: async (request) => ({ status: 200, body: { length: request.bodyBytes.length } }),
    },
    {
      method: "GET",
      pattern: "/markets/:marketId",
      handler: async (request) => {
        count("/markets/:marketId");
        return {
          status: 200,
          body: {
            params: request.params,
            url: request.url,
            path: request.path,
            query: request.query,
            route: request.route,
            requestId: request.requestId,
            probe: request.headers.get("x-probe") ?? null,
            bodyLength: request.bodyBytes.length,
          },
        };
      },
    },
    {
      method: "POST",
      pattern: "/markets/:marketId/items/:itemId",
      handler: async (request) => ({ status: 201, body: { params: request.params } }),
    },
    {
      method: "POST",
      pattern: "/throw",
      handler: async () => {
        count("/throw");
        throw new Error("secret internals 42");
      },
    },
    {
      method: "POST",
      pattern: "/throw-sync",
      handler: () => {
        throw new Error("secret sync internals");
      },
    },
    {
      method: "GET",
      pattern: "/reject-non-error",
      handler: () => Promise.reject("a string, not an Error"),
    },
    {
      method: "POST",
      pattern: "/fail/:code",
      handler: async (request) => {
        const code = request.params.code;
        if (code === "delegation_not_found_revoke") fail("delegation_not_found", "no delegation d1", { delegationNotFound: 404 });
        fail(code as never, `failed with ${code}`);
      },
    },
    {
      method: "GET",
      pattern: "/slow/:key",
      handler: async (request) => {
        const key = request.params.key ?? "";
        await gates.wait(key);
        finished.push(key);
        return { status: 200, body: { key } };
      },
    },
    {
      method: "GET",
      pattern: "/bad-reply/:kind",
      handler: async (request) => {
        switch (request.params.kind) {
          case "status":
            return { status: 99, body: {} };
          case "no-content":
            return { status: 204, body: {} };
          case "header-injection":
            return { status: 200, body: {}, headers: { "x-evil": "a\r\nset-cookie: x=1" } };
          case "reserved-header":
            return { status: 200, body: {}, headers: { "content-length": "1" } };
          case "cycle": {
            const cyclic: { self?: unknown } = {};
            cyclic.self = cyclic;
            return { status: 200, body: cyclic };
          }
          case "bigint":
            return { status: 200, body: { n: 1n } };
          case "undefined":
            return { status: 200, body: undefined };
          case "null":
            return null as never;
          default:
            return { status: 200, body: {}, headers: { "x-extra": "yes" } };
        }
      },
    },
    { method: "GET", pattern: "/serialized", handler: () => ({ status: 200, json: '{"pre":"serialised"}' }) },
    { method: "GET", pattern: "/serialized-buffer", handler: () => ({ status: 201, json: Buffer.from('{"pre":"buffer"}') }) },
    ...extraRoutes,
  ];
  const server = createHttpServer({
    routes,
    log: (level, message, fields) => {
      logs.push({ level, message, fields });
    },
    onResponse: (info) => {
      responses.push(info);
      for (let i = waiters.length - 1; i >= 0; i--) {
        const waiter = waiters[i];
        if (waiter !== undefined && waiter.match(info)) {
          waiters.splice(i, 1);
          waiter.resolve(info);
        }
      }
    },
    ...(options.limits === undefined ? {} : { limits: options.limits }),
  });
  const port = await server.listen("127.0.0.1", 0);
  return { server, port, base: `http://127.0.0.1:${port}`, logs, gates, calls, finished, responses, reported };
}
