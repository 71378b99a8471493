/** Spec §2.10: the market record. */
import type { Commitment } from "./commitment.js";
import type { CommandType } from "./command.js";
import type { ErrorCode } from "./errors.js";
import type { Event } from "./event.js";
import type { Market } from "./market.js";
import type { CommandId, CommandIdentity, DateTime, PositiveSafeUint64 } from "./shared.js";
import type { tags } from "typia";

export interface RecordedCommand {
  sequence: PositiveSafeUint64;
  id: CommandId;
  type: CommandType;
  /** Empty only when a rejected command could not be associated with a market. */
  marketId: string;
  identity: CommandIdentity;
  /**
   * The recorded application command including server-assigned identity and time. An open sealed
   * bid is redacted to `{sealed: true}`.
   */
  request: Record<string, unknown>;
  status: "accepted" | "rejected";
  rejectionCode?: ErrorCode;
  occurredAt: DateTime;
  recordedAt: DateTime;
}

export interface RecordIntegrity {
  algorithm: "sha256-canonical-json-v1";
  recordHash: string & tags.Pattern<"^sha256:[0-9a-f]{64}$">;
  stateReconstructed: boolean;
}

export interface MarketRecord {
  market: Market;
  commands: RecordedCommand[];
  commitments: Commitment[];
  events: Event[];
  integrity: RecordIntegrity;
}
