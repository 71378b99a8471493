/**
 * Single binary only. Stands in for the package `@trufflesuite/uws-js-unofficial`: the build
 * (build/build-binary.ts) aliases the package to this module, so `gateway/http/uws.ts` gets the
 * embedded native addon, extracted and dlopen'ed by native-addon.ts. The package's own loader, and
 * with it the pure-JS `ws` emulation it falls back to, is not in the binary at all. If the addon
 * cannot be loaded this module throws and the binary refuses to start (gateway/sea/main.ts).
 */
import type * as UwsPackage from "@trufflesuite/uws-js-unofficial";
import { uwsAssetName } from "./assets.js";
import { EmbeddedAddonError, loadEmbeddedAddon } from "./native-addon.js";

const loaded = loadEmbeddedAddon(uwsAssetName(), "uWebSockets.js");
const uWS = loaded.exports as typeof UwsPackage;

if (typeof uWS.App !== "function" || !Function.prototype.toString.call(uWS.App).includes("[native code]")) {
  throw new EmbeddedAddonError(`${loaded.addon.file} loaded but is not the uWebSockets.js native addon (no native App)`);
}

export default uWS;
