/**
 * The markets as the transports (HTTP, MCP) use them, whichever runtime is behind: the embedded
 * default (MarketRuntime: this process's shards) or a cluster node (ClusterRuntime: the partitions
 * it owns, and the owners of the others over NATS).
 */
import type { Command } from "../rules/types/command.js";
import type { EmittedEvent, ReadRequest, ShardReply } from "../shard-protocol/shard-protocol.js";
import type { SubmitResult } from "./submit-once.js";

export interface Markets {
  /** Runs the command once per (actor, commandId); resolves after it is durable. */
  submit(command: Command, fingerprint: string): Promise<SubmitResult>;
  readMarket(marketId: string): Promise<ShardReply>;
  /** The market record; `actorId` is the authenticated reader (checked against the creator). */
  readRecord(marketId: string, actorId: string): Promise<ShardReply>;
  readOutcome(marketId: string, principalId: string): Promise<ShardReply>;
  /**
   * A read of one log (a head signed now, or a proof: `log-head`, `log-proof`), answered by the
   * shard or partition that writes it; undefined when this service has no log `logId`.
   */
  readLog(logId: string, request: Extract<ReadRequest, { kind: "log-head" | "log-proof" }>): Promise<ShardReply> | undefined;
  /**
   * Starts (or stops) the emission of a market's committed events for live streams (docs/events.md):
   * WatchAnswer JSON (engine/shard-protocol/shard-protocol.ts), or `market_not_found`. The events arrive at the listener.
   */
  watchMarket(marketId: string, watching: boolean): Promise<ShardReply>;
  /** Where committed events of watched markets go, in commit order per market (the gateway's event hub). */
  listenForEvents(listener: MarketEventListener): void;
}

/** The gateway's event hub as the runtime sees it (gateway/events/event-hub.ts). */
export interface MarketEventListener {
  /** Committed events of watched markets, in commit order per market, each after its batch is durable. */
  events(events: readonly EmittedEvent[]): void;
  /**
   * The markets `moved` selects changed owner (cluster mode: their partition moved), so their
   * watches are gone: streams on them end, and their clients resume at the new owner.
   */
  moved(moved: (marketId: string) => boolean): void;
}
