/**
 * What every message with a body that one service node sends another carries first (docs/cluster.md,
 * "Upgrading"): forwarded requests and their replies, key bindings and their verdicts, and relayed
 * live events. Their bodies are encodings this build defines, which another build may define
 * differently, and a node must never act on a body it could misread. So each body starts with a
 * header naming its encoding, and a node answers or drops a message with any other header, in
 * words that say what is wrong, rather than decoding it.
 *
 * The header: MARK (0xc1, the one byte MessagePack never uses, so a bare MessagePack body from a
 * build before this header is never taken for one), INTER_NODE_WIRE_VERSION, then the first bytes
 * of the SHA-256 of the shard channel's agreed record structures (wire.ts's CHANNEL_STRUCTURES,
 * derived from the command layouts): a new command type or member changes the records' ids, and so
 * the header, with nobody having to remember a bump. Bump INTER_NODE_WIRE_VERSION for any other
 * change of these encodings (the binding and relay arrays, the envelope), and for any change of what
 * a message means to the node that acts on it, even when its bytes stay the same: version 2 came
 * with decision I67, when the binding of a forwarded command's key moved from its sender to the
 * market's owner, so that a node of version 1 (which executes what it is sent, unbound) never
 * receives a command that nobody bound.
 *
 * Outside the header, and so never to change: a message without a body (the lease bucket's release
 * announcement, leases.ts), and a refusal, which is a reply with an empty body and the
 * Market-Service-Unavailable header (forwarding.ts): it is how two builds tell each other they
 * differ.
 */
import { hash } from "node:crypto";
import { CHANNEL_STRUCTURES } from "../runtime/wire.js";

export const INTER_NODE_WIRE_VERSION = 2;
const MARK = 0xc1;
const LAYOUT_DIGEST_BYTES = 4;
const HEADER_BYTES = 2 + LAYOUT_DIGEST_BYTES;

/** The header of wire `version` whose records have the structures `structures`. */
export function interNodeHeader(version: number = INTER_NODE_WIRE_VERSION, structures: readonly (readonly string[])[] = CHANNEL_STRUCTURES): Uint8Array {
  if (!Number.isInteger(version) || version < 1 || version > 255) throw new RangeError(`an inter-node wire version is 1 to 255, not ${version}`);
  const digest = hash("sha256", JSON.stringify(structures), "buffer").subarray(0, LAYOUT_DIGEST_BYTES);
  return Uint8Array.of(MARK, version, ...digest);
}

/** This build's header. */
export const OWN_INTER_NODE_HEADER = interNodeHeader();

/** `body` with `header` in front. */
export function sealInterNode(body: Uint8Array, header: Uint8Array = OWN_INTER_NODE_HEADER): Uint8Array {
  const sealed = new Uint8Array(HEADER_BYTES + body.length);
  sealed.set(header, 0);
  sealed.set(body, HEADER_BYTES);
  return sealed;
}

/** The body of a message with `header` (a view, not a copy), or the words saying why it cannot be read. */
export function openInterNode(data: Uint8Array, header: Uint8Array = OWN_INTER_NODE_HEADER): { body: Uint8Array } | { refused: string } {
  if (data.length >= HEADER_BYTES && header.every((byte, i) => data[i] === byte)) return { body: data.subarray(HEADER_BYTES) };
  return { refused: `the cluster's service nodes run different builds (${theirs(data)}, this node ${describe(header)}); run one build on every node` };
}

function theirs(data: Uint8Array): string {
  if (data.length < HEADER_BYTES) return "a message too short to name its build";
  if (data[0] !== MARK) return "a message from a build older than versioned messages";
  return `a message of ${describe(data.subarray(0, HEADER_BYTES))}`;
}

function describe(header: Uint8Array): string {
  return `wire version ${String(header[1])}, record layout ${Buffer.from(header.subarray(2, HEADER_BYTES)).toString("hex")}`;
}

/**
 * Reports each refusal once per partition and wording: in a mixed cluster every message between
 * the two builds is refused, and one report says all there is to say.
 */
export class InterNodeRefusals {
  private readonly reported = new Set<string>();

  constructor(private readonly report: (partition: number, error: Error) => void) {}

  note(partition: number, refused: string): void {
    const key = `${partition} ${refused}`;
    if (this.reported.has(key)) return;
    this.reported.add(key);
    this.report(partition, new Error(refused));
  }
}
