/** The loader refuses the JavaScript fallback. */
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
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

  it("uses the runtime's exclusive-port flag value", () => {
    const require = createRequire(import.meta.url);
    const uWS = require("@trufflesuite/uws-js-unofficial") as { LIBUS_LISTEN_EXCLUSIVE_PORT: number };
    expect(LISTEN_EXCLUSIVE_PORT).toBe(uWS.LIBUS_LISTEN_EXCLUSIVE_PORT);
  });
});
