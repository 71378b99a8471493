/**
 * The shard message channel's batches as MessagePack bytes moved (transferred, not copied) between
 * threads. A structured clone of the request objects was a visible share of the gateway thread in a
 * claim storm; packing records and transferring the buffer costs a fraction of that, and both sides
 * stay plain data. Free-form parts of create commands travel as JSON text (`packableCommand`), as in the log.
 *
 * Record structures (the member names of an object shape) are agreed in advance for the shapes of
 * the claim path (CHANNEL_STRUCTURES), and never change while the process runs: every message used
 * to carry its shapes' definitions, and msgpackr compiled a new reader function for each shape of
 * each message after its third use, on both threads (decision I14 has the measurements). Any other
 * shape (or a known shape with other members, or in another order) is still defined inline in its
 * message, as before. Within a process the agreed list is an optimisation, never a condition: both
 * threads run the same build, and nothing packed here is stored. Between cluster nodes, which
 * forward these bytes to each other, it is a condition: a node of another build may agree on other
 * ids, so every message between nodes names a digest of CHANNEL_STRUCTURES in its header, and a node
 * refuses a message whose digest is not its own (engine/cluster/inter-node-wire.ts).
 */
import { Packr } from "msgpackr";
import { COMMAND_TYPES } from "@market-service/client/wire";
import { type Command } from "../rules/types/command.js";
import { COMMAND_LAYOUTS, IDENTITY_LAYOUT, REJECTION_LAYOUT } from "../rules/types/command-layout.js";
import { presenceVariants } from "../rules/types/layout.js";
import { packableCommand, restorePackedCommand } from "../log/logged-command.js";
import {
  commandRequest,
  commandResponse,
  errorReply,
  marketRead,
  okReply,
  outcomeRead,
  readResponse,
  recordRead,
  replyAtRead,
  type ShardRequest,
  type ShardResponse,
} from "../shard-protocol/shard-protocol.js";
import { envelope, type Envelope } from "./worker-messages.js";

/** The members of a message as its one constructor writes them (the values are placeholders). */
const membersOf = (message: object): string[] => Object.keys(message);
const ANY_COMMAND = undefined as unknown as Command;

/**
 * The agreed shapes, derived from where each is declared once: the channel messages of a claim
 * and of reads from their constructors (engine/shard-protocol/shard-protocol.ts, worker-messages.ts); every command a
 * client sends, in every presence variant of its optional members, and the identity and the
 * rejection inside it, from their declared layouts (engine/rules/types/command-layout.ts).
 * `test/runtime/wire.test.ts` checks that a claim's request and reply use no other shape. Bounded by
 * msgpackr's 32 one-byte shared record ids.
 */
export const CHANNEL_STRUCTURES: readonly string[][] = unique([
  membersOf(envelope(0, undefined)),
  membersOf(commandRequest(ANY_COMMAND, "")),
  membersOf(marketRead("")),
  membersOf(recordRead("", "")),
  membersOf(outcomeRead("", "")),
  membersOf(replyAtRead(0)),
  membersOf(commandResponse("accepted", okReply(""), 0)),
  membersOf(readResponse(okReply(""))),
  membersOf(okReply("")),
  membersOf(errorReply("internal_error", "")),
  ...presenceVariants(IDENTITY_LAYOUT),
  ...presenceVariants(REJECTION_LAYOUT),
  ...COMMAND_TYPES.filter((type) => COMMAND_LAYOUTS[type].origin === "client").flatMap((type) => presenceVariants(COMMAND_LAYOUTS[type].members)),
]);
const MAX_SHARED_STRUCTURES = 32;
if (CHANNEL_STRUCTURES.length > MAX_SHARED_STRUCTURES) throw new Error("too many agreed channel structures");

/** Each shape once (a confirm and a decline have the same members). */
function unique(shapes: readonly string[][]): string[][] {
  const seen = new Set<string>();
  return shapes.filter((shape) => {
    const key = JSON.stringify(shape);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * A packer or unpacker holding the agreed structures. `shouldShareStructure` refuses every new
 * shape, so msgpackr never adds to the agreed list (it would otherwise try to, and the other thread
 * could not know): new shapes are defined inline, per message. Each instance gets its own copy
 * (msgpackr keeps state on the array).
 */
function channelPackr(): Packr {
  return new Packr({
    useRecords: true,
    moreTypes: false,
    structures: CHANNEL_STRUCTURES.map((keys) => keys.slice()),
    maxSharedStructures: MAX_SHARED_STRUCTURES,
    shouldShareStructure: () => false,
  });
}

/** One encoder and one decoder per thread: a thread packs one direction and unpacks the other. */
const encoder = channelPackr();
const decoder = channelPackr();

/** Packed bytes in a buffer of their own, so the buffer can be transferred (msgpackr reuses its own). */
function owned(bytes: Uint8Array): Uint8Array {
  const copy = new Uint8Array(bytes.length);
  copy.set(bytes);
  return copy;
}

/** Only a create command is copied (its free-form parts as JSON text); every other request is packed as it is. */
function packableRequest(item: Envelope<ShardRequest>): Envelope<ShardRequest> {
  if (item.body.kind !== "command") return item;
  const command = packableCommand(item.body.command);
  return command === item.body.command ? item : envelope(item.id, commandRequest(command, item.body.fingerprint));
}

export function packRequests(items: ReadonlyArray<Envelope<ShardRequest>>): Uint8Array {
  return owned(encoder.pack(items.map(packableRequest)));
}

export function unpackRequests(bytes: Uint8Array): Array<Envelope<ShardRequest>> {
  const items = decoder.unpack(bytes) as Array<Envelope<ShardRequest>>;
  for (const item of items) if (item.body.kind === "command") restorePackedCommand(item.body.command);
  return items;
}

export function packResponses(items: ReadonlyArray<Envelope<ShardResponse>>): Uint8Array {
  return owned(encoder.pack(items));
}

export function unpackResponses(bytes: Uint8Array): Array<Envelope<ShardResponse>> {
  return decoder.unpack(bytes) as Array<Envelope<ShardResponse>>;
}
