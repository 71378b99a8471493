/**
 * The strict-JSON rules for values that arrive already parsed (MCP tool arguments are parsed by the
 * SDK with plain JSON.parse, so the HTTP layer's strict parser never sees them): every number finite,
 * integers within ±(2^53 − 1) (a larger literal was already rounded, and a rounded value is still
 * ≥ 2^53, so it is caught), no lone surrogates in strings or member names, bounded nesting, and −0
 * normalized to 0 (as the HTTP parser does), so both transports hand the engine the same values.
 */
const DEFAULT_MAX_DEPTH = 32;

export type JsonCheck = { ok: true; value: unknown } | { ok: false; message: string };

export function checkJsonValue(value: unknown, maxDepth = DEFAULT_MAX_DEPTH): JsonCheck {
  try {
    return { ok: true, value: normalize(value, "$", 1, maxDepth) };
  } catch (error) {
    if (error instanceof JsonRuleError) return { ok: false, message: error.message };
    throw error;
  }
}

class JsonRuleError extends Error {}

function normalize(value: unknown, where: string, depth: number, maxDepth: number): unknown {
  switch (typeof value) {
    case "number":
      if (!Number.isFinite(value)) throw new JsonRuleError(`number at ${where} is not finite`);
      if (Number.isInteger(value) && !Number.isSafeInteger(value)) throw new JsonRuleError(`integer at ${where} is beyond ±(2^53 − 1) and cannot be represented exactly`);
      return Object.is(value, -0) ? 0 : value;
    case "string":
      if (!value.isWellFormed()) throw new JsonRuleError(`string at ${where} contains a lone surrogate`);
      return value;
    case "boolean":
      return value;
    case "object": {
      if (value === null) return null;
      if (depth > maxDepth) throw new JsonRuleError(`JSON nested deeper than ${maxDepth} levels at ${where}`);
      if (Array.isArray(value)) return value.map((item, i) => normalize(item, `${where}[${i}]`, depth + 1, maxDepth));
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(value)) {
        if (!key.isWellFormed()) throw new JsonRuleError(`member name at ${where} contains a lone surrogate`);
        // defineProperty: a member named "__proto__" stays an own data property, as JSON.parse makes it.
        Object.defineProperty(out, key, {
          value: normalize((value as Record<string, unknown>)[key], `${where}.${key}`, depth + 1, maxDepth),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return out;
    }
    default:
      throw new JsonRuleError(`value at ${where} is not JSON`);
  }
}
