/**
 * The live market page (docs/live-page.md): `GET /` serves it and `GET /ui/:asset` the script and
 * style sheet it names, from memory (gateway/page/generated/page-assets.ts, built by
 * build/build-page.ts). Public and outside the readiness gate: the files hold no data and no
 * secret; the page itself reads the market with the token a person pastes into it.
 *
 * Caching: the page is `no-cache` (always revalidated, so it names the current files); the files'
 * names carry a hash of their content, so a browser may keep them for good. An unknown asset name
 * is a JSON 404 like any unknown route, and other methods get the router's 405.
 */
import { fail } from "../http/errors.js";
import type { HttpRoute, StaticReply } from "../http/route.js";
import { PAGE_FILES, PAGE_HTML } from "../page/generated/page-assets.js";

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
};

const PAGE_CACHE = "no-cache";
const HASHED_FILE_CACHE = "public, max-age=31536000, immutable";

/**
 * What the page may do: its own script and style sheet, and requests to this origin only; no
 * inline code, no frames, no form posts elsewhere, no referrer. (`data:` images: its empty icon.)
 */
const PAGE_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
};
const FILE_HEADERS: Readonly<Record<string, string>> = { "x-content-type-options": "nosniff" };

function contentTypeOf(name: string): string {
  const dot = name.lastIndexOf(".");
  const type = dot < 0 ? undefined : CONTENT_TYPES[name.slice(dot)];
  if (type === undefined) throw new Error(`page asset ${name} has no known content type`);
  return type;
}

export function pageRoutes(): HttpRoute[] {
  const page: StaticReply = { status: 200, contentType: "text/html; charset=utf-8", cacheControl: PAGE_CACHE, bytes: Buffer.from(PAGE_HTML, "utf8"), headers: PAGE_HEADERS };
  const files = new Map<string, StaticReply>(
    PAGE_FILES.map(({ name, text }) => [name, { status: 200, contentType: contentTypeOf(name), cacheControl: HASHED_FILE_CACHE, bytes: Buffer.from(text, "utf8"), headers: FILE_HEADERS }]),
  );
  return [
    { method: "GET", pattern: "/", handler: () => page },
    {
      method: "GET",
      pattern: "/ui/:asset",
      handler: (request) => files.get(request.params["asset"] ?? "") ?? fail("not_found", "no page asset has this name (the page names its current files)"),
    },
  ];
}
