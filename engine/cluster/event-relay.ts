/**
 * Live market events across a cluster (docs/events.md, "Cluster"): the owner of a partition
 * publishes the committed events its shard emits (only watched markets emit any) on
 * `cluster.events.<p>`; a node with subscribers on a market of a partition it does not own follows
 * that subject while it watches the market at the owner (the watch itself travels as a forwarded
 * shard request). A node that gives a partition up, and one that acquires it, announces the move on
 * the same subject, so every node ends the streams on that partition's markets and their clients
 * resume at the new owner (a crashed owner announces nothing; its successor does).
 *
 * Every message starts with the inter-node header naming its encoding (inter-node-wire.ts).
 *
 * NATS core delivers at most once: a lost message shows as a gap in a market's sequence, which the
 * event hub answers by ending that market's streams for a resume from the record.
 */
import type { Subscription, Transport } from "../messaging/transport.js";
import { Packr } from "msgpackr";
import type { EmittedEvent } from "../shard-protocol/shard-protocol.js";
import { InterNodeRefusals, OWN_INTER_NODE_HEADER, openInterNode, sealInterNode } from "./inter-node-wire.js";

export function eventsSubject(partition: number): string {
  return `cluster.events.${partition}`;
}

type RelayMessage = { k: "events"; events: readonly EmittedEvent[] } | { k: "moved" };

const packr = new Packr({ useRecords: false, moreTypes: false });

export interface RelayListener {
  events(events: readonly EmittedEvent[]): void;
  moved(partition: number): void;
}

export class EventRelay {
  /** Partitions followed for remote watches here, with how many watches need each. */
  private readonly followed = new Map<number, { subscription: Subscription; watches: number }>();
  /** Messages of another build refused, reported through onError once each. */
  private readonly refusals: InterNodeRefusals;

  constructor(
    private readonly transport: Transport,
    private readonly listener: RelayListener,
    private readonly onError: (error: unknown) => void,
    /** The inter-node header this node's messages carry (inter-node-wire.ts); another only in tests of a mixed cluster. */
    private readonly wireHeader: Uint8Array = OWN_INTER_NODE_HEADER,
  ) {
    this.refusals = new InterNodeRefusals((_partition, error) => onError(error));
  }

  /** The owner of `partition` publishes its committed events of watched markets. */
  publishEvents(partition: number, events: readonly EmittedEvent[]): void {
    this.publish(partition, { k: "events", events });
  }

  /** `partition` changed owner (this node gave it up or acquired it). */
  publishMoved(partition: number): void {
    this.publish(partition, { k: "moved" });
  }

  private publish(partition: number, message: RelayMessage): void {
    try {
      this.transport.publish(eventsSubject(partition), sealInterNode(packr.pack(message), this.wireHeader));
    } catch (error) {
      // A closed or draining connection: the node is stopping, or NATS is out of reach (a gap, then a resume).
      this.onError(error);
    }
  }

  /** Starts following `partition` for one more remote watch (subscribed before the watch is sent). */
  follow(partition: number): void {
    const current = this.followed.get(partition);
    if (current !== undefined) {
      current.watches += 1;
      return;
    }
    const subscription = this.transport.subscribe(eventsSubject(partition), {}, (message) => {
      const opened = openInterNode(message.data, this.wireHeader);
      if ("refused" in opened) {
        // Events this node cannot read: its streams on the partition end as on a move, and their
        // clients' resumes meet the same refusal as a forwarded request, in words (forwarding.ts).
        this.refusals.note(partition, opened.refused);
        this.listener.moved(partition);
        return;
      }
      try {
        const decoded = packr.unpack(opened.body) as RelayMessage;
        if (decoded.k === "events") this.listener.events(decoded.events);
        else this.listener.moved(partition);
      } catch (failure) {
        this.onError(failure);
      }
    });
    this.followed.set(partition, { subscription, watches: 1 });
  }

  /** One remote watch of `partition` ended. */
  unfollow(partition: number): void {
    const current = this.followed.get(partition);
    if (current === undefined) return;
    current.watches -= 1;
    if (current.watches > 0) return;
    this.followed.delete(partition);
    current.subscription.unsubscribe();
  }

  close(): void {
    for (const { subscription } of this.followed.values()) subscription.unsubscribe();
    this.followed.clear();
  }
}
