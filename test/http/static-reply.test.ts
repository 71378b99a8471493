/**
 * Static replies (route.ts `StaticReply`): the live page's routes (gateway/routes/page-routes.ts) on
 * a real server on 127.0.0.1:0: content types, cache rules, security headers, the JSON 404 of an
 * unknown file, 405 for other methods; and a handler's malformed static reply costs a 500, never a
 * broken response.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HttpRoute, StaticReply } from "../../gateway/http/route.js";
import { PAGE_FILES, PAGE_HTML } from "../../gateway/page/generated/page-assets.js";
import { pageRoutes } from "../../gateway/routes/page-routes.js";
import { startTestServer, type TestServer } from "./support/test-server.js";

const LARGE = Buffer.alloc(3 * 1024 * 1024 + 17, "a");

const extraRoutes: HttpRoute[] = [
  ...pageRoutes(),
  { method: "GET", pattern: "/static/large", handler: (): StaticReply => ({ status: 200, contentType: "text/plain; charset=utf-8", cacheControl: "no-cache", bytes: LARGE }) },
  { method: "GET", pattern: "/static/bad-type", handler: (): StaticReply => ({ status: 200, contentType: "text/plain\r\nx-injected: 1", cacheControl: "no-cache", bytes: Buffer.from("x") }) },
  { method: "GET", pattern: "/static/bad-header", handler: (): StaticReply => ({ status: 200, contentType: "text/plain", cacheControl: "no-cache", bytes: Buffer.from("x"), headers: { "cache-control": "public" } }) },
];

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer(extraRoutes);
});
afterAll(() => t.server.close());

function assetNames(): string[] {
  return [...PAGE_HTML.matchAll(/"\/ui\/([^"]+)"/g)].map((match) => match[1] as string);
}

describe("the live page's routes", () => {
  it("GET / is the page: HTML, never cached, with a content security policy", async () => {
    const response = await fetch(`${t.base}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("no-cache");
    expect(response.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(response.headers.get("content-security-policy")).toContain("connect-src 'self'");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("referrer-policy")).toBe("no-referrer");
    expect(response.headers.get("x-request-id")).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(await response.text()).toBe(PAGE_HTML);
  });

  it("GET /ui/<name> serves each file the page names, with its content type, cached for good", async () => {
    expect(assetNames().sort()).toEqual(PAGE_FILES.map((file) => file.name).sort());
    for (const file of PAGE_FILES) {
      const response = await fetch(`${t.base}/ui/${file.name}`);
      expect(response.status, file.name).toBe(200);
      expect(response.headers.get("content-type")).toBe(file.name.endsWith(".js") ? "text/javascript; charset=utf-8" : "text/css; charset=utf-8");
      expect(response.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      expect(Number(response.headers.get("content-length"))).toBe(Buffer.byteLength(file.text));
      expect(await response.text()).toBe(file.text);
    }
  });

  it("an unknown file is a JSON 404 not_found, not cacheable; other methods get 405 with Allow", async () => {
    for (const name of ["app.js", "app-000000000000.js", "..%2Fpackage.json", "index.html"]) {
      const response = await fetch(`${t.base}/ui/${name}`);
      expect(response.status, name).toBe(404);
      expect(response.headers.get("content-type")).toBe("application/json");
      expect(response.headers.get("cache-control")).toBe("no-store");
      const body = (await response.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe("not_found");
      expect(body.error.message).toMatch(/page asset/);
    }
    const deeper = await fetch(`${t.base}/ui/a/b.js`);
    expect(deeper.status).toBe(404);
    for (const path of ["/", `/ui/${PAGE_FILES[0]?.name ?? ""}`]) {
      for (const method of ["POST", "PUT", "DELETE", "HEAD"]) {
        const response = await fetch(`${t.base}${path}`, { method });
        expect(response.status, `${method} ${path}`).toBe(405);
        expect(response.headers.get("allow")).toBe("GET");
      }
    }
  });
});

describe("static replies", () => {
  it("a body above the chunking threshold arrives whole, with its own content type", async () => {
    const response = await fetch(`${t.base}/static/large`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("no-cache");
    expect(Buffer.from(await response.arrayBuffer()).equals(LARGE)).toBe(true);
  });

  it("a content type with CR/LF or a reserved header in a static reply is a 500, nothing injected", async () => {
    for (const path of ["/static/bad-type", "/static/bad-header"]) {
      const response = await fetch(`${t.base}${path}`);
      expect(response.status, path).toBe(500);
      expect(response.headers.get("content-type")).toBe("application/json");
      expect(response.headers.get("x-injected")).toBeNull();
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe("internal_error");
    }
    expect(t.logs.filter((entry) => entry.message === "handler returned an invalid reply")).toHaveLength(2);
  });
});
