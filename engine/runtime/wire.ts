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
 * message, as before, so the agreed list is an optimisation, never a condition: both threads run the
 * same build, and nothing packed here is stored.
 */
import { Packr } from "msgpackr";
import { packableCommand, restorePackedCommand } from "./logged-command.js";
import type { CommandRequest, CommandResponse, ReadRequest, ReadResponse, ShardRequest, ShardResponse, ShardReply } from "./shard-protocol.js";
import type { Envelope } from "./worker-messages.js";
import type { Command } from "../rules/types/command.js";
import type { CommandIdentity } from "../rules/types/shared.js";

/** Members of `T` in the order its literals write them (a shape matches only in the same order). */
const shape = <T>(...keys: Array<keyof T & string>): string[] => keys;
type CommandOf<K extends Command["type"]> = Extract<Command, { type: K }>;

/**
 * The agreed shapes, as the gateway (market-api.ts, market-runtime.ts, market-routes) and the shard
 * (shard-core.ts) build them. `test/runtime/wire.test.ts` checks that a claim's request and reply
 * use no other shape, so a literal whose member order changes fails there instead of silently
 * packing slower. Bounded by msgpackr's 32 one-byte shared record ids.
 */
export const CHANNEL_STRUCTURES: readonly string[][] = [
  shape<Envelope<unknown>>("id", "body"),
  shape<CommandRequest>("kind", "command", "fingerprint"),
  shape<CommandIdentity>("principalId", "actorId"),
  shape<CommandIdentity>("principalId", "actorId", "authorityRef"),
  shape<CommandOf<"direct_claim.submit">>("type", "marketId", "commandId", "identity", "occurredAtMs"),
  shape<CommandOf<"direct_claim.submit">>("type", "marketId", "expectedVersion", "commandId", "identity", "occurredAtMs"),
  shape<CommandOf<"sealed_auction.submit_bid">>("type", "marketId", "amountMinor", "currency", "commandId", "identity", "occurredAtMs"),
  shape<CommandOf<"market.publish">>("type", "marketId", "expectedVersion", "commandId", "identity", "occurredAtMs"),
  shape<CommandOf<"commitment.confirm">>("type", "commitmentId", "commandId", "identity", "occurredAtMs"),
  shape<Extract<ReadRequest, { kind: "market" }>>("kind", "marketId"),
  shape<Extract<ReadRequest, { kind: "record" }>>("kind", "marketId", "actorId"),
  shape<Extract<ReadRequest, { kind: "outcome" }>>("kind", "marketId", "principalId"),
  shape<Extract<ReadRequest, { kind: "reply-at" }>>("kind", "position"),
  shape<CommandResponse>("kind", "status", "reply", "position"),
  shape<ReadResponse>("kind", "reply"),
  shape<Extract<ShardReply, { ok: true }>>("ok", "json"),
  shape<Extract<ShardReply, { ok: false }>>("ok", "code", "message"),
];
const MAX_SHARED_STRUCTURES = 32;
if (CHANNEL_STRUCTURES.length > MAX_SHARED_STRUCTURES) throw new Error("too many agreed channel structures");

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
  return command === item.body.command ? item : { id: item.id, body: { ...item.body, command } };
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
