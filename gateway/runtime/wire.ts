/**
 * The shard message channel's batches as MessagePack bytes moved (transferred, not copied) between
 * threads. A structured clone of the request objects cost ~9% of the gateway thread in a claim storm;
 * packing with inline record structures and transferring the buffer costs a fraction of that, and
 * both sides stay plain data. Free-form parts of create commands travel as JSON text
 * (`packableCommand`), as in the log.
 */
import { Packr } from "msgpackr";
import { packableCommand, restorePackedCommand } from "./logged-command.js";
import type { ShardRequest, ShardResponse } from "./shard-protocol.js";
import type { Envelope } from "./worker-messages.js";

const packr = new Packr({ useRecords: true, moreTypes: false });

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
  return owned(packr.pack(items.map(packableRequest)));
}

export function unpackRequests(bytes: Uint8Array): Array<Envelope<ShardRequest>> {
  const items = packr.unpack(bytes) as Array<Envelope<ShardRequest>>;
  for (const item of items) if (item.body.kind === "command") restorePackedCommand(item.body.command);
  return items;
}

export function packResponses(items: ReadonlyArray<Envelope<ShardResponse>>): Uint8Array {
  return owned(packr.pack(items));
}

export function unpackResponses(bytes: Uint8Array): Array<Envelope<ShardResponse>> {
  return packr.unpack(bytes) as Array<Envelope<ShardResponse>>;
}
