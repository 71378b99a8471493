/**
 * Native addons embedded in the single binary (`dist/market-service`, a Node single executable
 * application): the SEA carries each `.node` file as an asset, but the dynamic loader can only map a
 * file, so each one is extracted once to a private cache directory (embedded-file.ts says where and
 * how it is checked, reused and replaced) and `process.dlopen`ed from there.
 *
 * `os.tmpdir()` follows TMPDIR. It must be on a filesystem that allows executable mappings (not
 * mounted noexec), or dlopen fails; the binary then refuses to start with that reason.
 *
 * Only the single binary uses this module (build/build-binary.ts aliases the addon packages to
 * uws-addon.ts and crc32-addon.ts); `node dist/gateway/...` and the tests load the packages normally.
 */
import * as os from "node:os";
import { EmbeddedFileError, embeddedCacheRoot, errorText, extractEmbeddedFile, type ExtractedFile } from "./embedded-file.js";

export class EmbeddedAddonError extends Error {
  override name = "EmbeddedAddonError";
}

export interface ExtractedAddon extends ExtractedFile {
  /** Time to hash, check or extract, and dlopen, in milliseconds. */
  ms: number;
}

/** The directory extracted addons live under (`os.tmpdir()`, i.e. TMPDIR or /tmp). */
export function addonCacheRoot(): string {
  return embeddedCacheRoot();
}

const loadedInThisThread = new Map<string, { addon: ExtractedAddon; exports: unknown }>();

/** Addons this thread has loaded so far (the self-check reports them). */
export function loadedAddons(): ExtractedAddon[] {
  return [...loadedInThisThread.values()].map((entry) => entry.addon);
}

/**
 * Extracts (or reuses) the embedded addon `asset` and dlopens it with RTLD_NOW. Once per thread;
 * later calls return the same exports. Throws EmbeddedAddonError naming the cause.
 */
export function loadEmbeddedAddon(asset: string, what: string): { exports: unknown; addon: ExtractedAddon } {
  const cached = loadedInThisThread.get(asset);
  if (cached !== undefined) return cached;
  const started = performance.now();
  let extracted: ExtractedFile;
  try {
    extracted = extractEmbeddedFile(asset, { what: `${what} native addon`, plural: "Addons" });
  } catch (error) {
    throw error instanceof EmbeddedFileError ? new EmbeddedAddonError(error.message) : error;
  }
  const module = { exports: {} as unknown };
  try {
    process.dlopen(module, extracted.file, os.constants.dlopen.RTLD_NOW);
  } catch (error) {
    throw new EmbeddedAddonError(
      `cannot load the embedded ${what} native addon from ${extracted.file}: ${errorText(error)}. ` +
        `The directory (${addonCacheRoot()}; set TMPDIR to choose another) must be on a filesystem that allows executable mappings (not mounted noexec).`,
    );
  }
  const addon: ExtractedAddon = { ...extracted, ms: performance.now() - started };
  const entry = { exports: module.exports, addon };
  loadedInThisThread.set(asset, entry);
  return entry;
}
