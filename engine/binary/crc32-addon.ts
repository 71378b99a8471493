/**
 * Single binary only. Stands in for the package `@node-rs/crc32`: the build (build/build-binary.ts)
 * aliases the package to this module, so `storage/crc32c.ts` gets the embedded linux-x64-gnu addon,
 * extracted and dlopen'ed by native-addon.ts (in the main thread and in every shard worker). The
 * napi-rs loader of the package (which looks for the addon in node_modules) is not in the binary.
 */
import { CRC32_ASSET } from "./assets.js";
import { EmbeddedAddonError, loadEmbeddedAddon } from "./native-addon.js";

interface Crc32Binding {
  crc32(input: string | Uint8Array, initialState?: number | null): number;
  crc32c(input: string | Uint8Array, initialState?: number | null): number;
}

const loaded = loadEmbeddedAddon(CRC32_ASSET, "@node-rs/crc32");
const binding = loaded.exports as Crc32Binding;

// CRC-32C check value (RFC 3720 B.4 / the "123456789" catalogue value).
if (typeof binding.crc32c !== "function" || binding.crc32c(Buffer.from("123456789", "ascii"), 0) !== 0xe3069283) {
  throw new EmbeddedAddonError(`${loaded.addon.file} loaded but is not a working @node-rs/crc32 addon (CRC-32C check value mismatch)`);
}

export const crc32 = binding.crc32;
export const crc32c = binding.crc32c;
