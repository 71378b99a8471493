/**
 * Route patterns (`/v1/markets/:marketId/publish`) and their path parameters.
 *
 * uWS hands parameters over exactly as they appear in the request target (still percent-encoded),
 * and does no path normalization: `..` is an ordinary segment. Parameters here are opaque ids, not
 * file paths, so `..` and an encoded `/` (`%2F`) are legal id characters and reach the handler as
 * data. What is refused (404 `not_found`: no resource can have such an id):
 * - a malformed escape (`%zz`, or escapes that are not UTF-8, such as an encoded lone surrogate);
 * - raw characters a client must have percent-encoded (controls, space, non-ASCII);
 * - a decoded value with a C0 control character or DEL (they would corrupt logs and terminals;
 *   docs/decisions.md D10 refuses them in every identifier anyway);
 * - a value longer than the route's bound.
 */

export interface CompiledPattern {
  pattern: string;
  /** Parameter names in the order uWS numbers them for `getParameter(i)`. */
  paramNames: readonly string[];
  /** The pattern with parameter names erased: two routes with the same shape collide in uWS. */
  shape: string;
}

const PARAM_NAME = /^[A-Za-z][A-Za-z0-9_]*$/;
const STATIC_SEGMENT = /^[A-Za-z0-9._~-]+$/;

/** Validates a route pattern (a programming error throws at server construction, never later). */
export function compilePattern(pattern: string): CompiledPattern {
  if (!pattern.startsWith("/")) throw new Error(`route pattern must start with '/': ${pattern}`);
  const segments = pattern === "/" ? [] : pattern.slice(1).split("/");
  const paramNames: string[] = [];
  const shape: string[] = [];
  for (const segment of segments) {
    if (segment.startsWith(":")) {
      const name = segment.slice(1);
      if (!PARAM_NAME.test(name)) throw new Error(`bad parameter name '${name}' in route pattern ${pattern}`);
      if (paramNames.includes(name)) throw new Error(`repeated parameter '${name}' in route pattern ${pattern}`);
      paramNames.push(name);
      shape.push(":");
    } else {
      if (!STATIC_SEGMENT.test(segment)) throw new Error(`bad segment '${segment}' in route pattern ${pattern}`);
      shape.push(segment);
    }
  }
  return { pattern, paramNames, shape: `/${shape.join("/")}` };
}

export type ParamDecodeResult = { ok: true; value: string } | { ok: false; message: string };

/** Decodes one raw path parameter; `maxChars` bounds the decoded length in UTF-16 code units. */
export function decodePathParam(name: string, raw: string, maxChars: number): ParamDecodeResult {
  // A decoded UTF-16 unit comes from at most 9 raw characters ("%E2%82%AC" is one unit), so a raw
  // value longer than that is too long without decoding it.
  if (raw.length > maxChars * 9) return tooLong(name, maxChars);
  let hasEscape = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c <= 0x20 || c >= 0x7f) {
      return { ok: false, message: `path parameter ${name} contains a character that must be percent-encoded` };
    }
    if (c === 0x25) hasEscape = true;
  }
  let value = raw;
  if (hasEscape) {
    try {
      value = decodeURIComponent(raw);
    } catch {
      // URIError: a malformed escape, or escaped bytes that are not UTF-8.
      return { ok: false, message: `path parameter ${name} has a malformed percent-encoding` };
    }
    for (let i = 0; i < value.length; i++) {
      const c = value.charCodeAt(i);
      if (c < 0x20 || c === 0x7f) {
        return { ok: false, message: `path parameter ${name} contains a control character` };
      }
    }
  }
  if (value.length === 0) return { ok: false, message: `path parameter ${name} is empty` };
  if (value.length > maxChars) return tooLong(name, maxChars);
  return { ok: true, value };
}

function tooLong(name: string, maxChars: number): ParamDecodeResult {
  return { ok: false, message: `path parameter ${name} is longer than ${maxChars} characters` };
}
