/** The loader refuses the JavaScript fallback. */
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { createHttpServer } from "../../gateway/http/server.js";
import { assertNativeUws, isNativeUws, LISTEN_EXCLUSIVE_PORT } from "../../gateway/http/uws.js";

describe("uWS loader", () => {
  it("has the native binary loaded here", () => {
    expect(() => assertNativeUws()).not.toThrow();
  });

  it("recognises a JavaScript implementation as not native", () => {
    expect(isNativeUws({ App: () => undefined })).toBe(false);
    expect(isNativeUws({ App: undefined })).toBe(false);
    // The package's own fallback (what a failed binary load silently returns).
    const require = createRequire(import.meta.url);
    const fallback = require("@trufflesuite/uws-js-unofficial/dist/index") as { App: unknown };
    expect(typeof fallback.App).toBe("function");
    expect(isNativeUws(fallback)).toBe(false);
  });

  it("listens exclusively: a second server on the same port is refused instead of sharing its traffic", async () => {
    const require = createRequire(import.meta.url);
    const uWS = require("@trufflesuite/uws-js-unofficial") as { LIBUS_LISTEN_EXCLUSIVE_PORT: number };
    expect(LISTEN_EXCLUSIVE_PORT).toBe(uWS.LIBUS_LISTEN_EXCLUSIVE_PORT);
    const route = { method: "GET" as const, pattern: "/x", handler: () => ({ status: 200, body: {} }) };
    const first = createHttpServer({ routes: [route], log: () => undefined });
    const second = createHttpServer({ routes: [route], log: () => undefined });
    try {
      const port = await first.listen("127.0.0.1", 0);
      await expect(second.listen("127.0.0.1", port)).rejects.toThrow();
    } finally {
      first.close();
      second.close();
    }
  });
});
