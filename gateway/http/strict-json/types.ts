/** What strict JSON parsing takes and gives back. */

export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
export interface JsonObject {
  [member: string]: JsonValue;
}

export interface StrictJsonLimits {
  /** Containers nested in each other, the top-level object counting as 1. */
  maxDepth: number;
  /**
   * Also accept a top-level array (JSON-RPC batches on /mcp); request bodies are objects. A caller
   * that sets this must treat `value` as unknown: it may then be an array.
   */
  allowTopLevelArray?: boolean;
}

/**
 * 32 levels: a command body uses at most 4 (body → mechanism → config → price), which leaves a
 * client's `subject.data` about 28 levels of its own, more than real documents use, while bounding
 * the recursion of every consumer (validators, canonical JSON, msgpack) to a small stack.
 */
export const DEFAULT_MAX_JSON_DEPTH = 32;
export const DEFAULT_STRICT_JSON_LIMITS: StrictJsonLimits = { maxDepth: DEFAULT_MAX_JSON_DEPTH };

export type StrictJsonResult = { ok: true; value: JsonObject } | { ok: false; message: string };
