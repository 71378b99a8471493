/**
 * The version every message between two service nodes carries (docs/cluster.md, "Upgrading"):
 * forwarded requests and their replies, key bindings and relayed live events. Their bodies are
 * encodings this build defines (wire.ts's records, the binding and relay arrays), which another
 * build may define differently, and a node must never act on a body it could misread. So each body
 * starts with two bytes, MARK and the version, and a node answers or drops a message of any other
 * version with words that say what is wrong, rather than decoding it.
 *
 * MARK is 0xc1, the one byte MessagePack never uses, so a body without the header (a build from
 * before the header, which sent bare MessagePack) is never taken for a versioned one.
 *
 * Bump INTER_NODE_WIRE_VERSION whenever any of those encodings changes: a mixed cluster then
 * refuses between its two builds instead of misreading, and an upgrade stops the whole cluster.
 */

export const INTER_NODE_WIRE_VERSION = 1;
const MARK = 0xc1;
const HEADER_BYTES = 2;

/** `body` with the header of wire `version` in front. */
export function sealInterNode(body: Uint8Array, version: number = INTER_NODE_WIRE_VERSION): Uint8Array {
  const sealed = new Uint8Array(HEADER_BYTES + body.length);
  sealed[0] = MARK;
  sealed[1] = version;
  sealed.set(body, HEADER_BYTES);
  return sealed;
}

/** The body of a message of wire `version` (a view, not a copy), or the words saying why it cannot be read. */
export function openInterNode(data: Uint8Array, version: number = INTER_NODE_WIRE_VERSION): { body: Uint8Array } | { refused: string } {
  if (data.length >= HEADER_BYTES && data[0] === MARK && data[1] === version) return { body: data.subarray(HEADER_BYTES) };
  const theirs = data.length >= HEADER_BYTES && data[0] === MARK ? `version ${String(data[1])}` : "no version (a build older than versioned messages)";
  return { refused: `the cluster's service nodes run different builds (a message of inter-node wire ${theirs} reached a node of version ${version}); run one build on every node: stop them all, upgrade, start them again` };
}
