/**
 * Ordered consumers that notice when they are stuck, for the JetStream journal's reads and its
 * follower (the NATS adapter's `consume`, nats-streams.ts).
 *
 * An ordered consumer is created by the client when it first pulls, and recreated after a gap. A
 * pull that meets no responder (the consumer not created yet on a busy cluster, or lost with its
 * one NATS node) is not retried by the client: it waits until two heartbeats are missed, and with
 * the client's defaults (a 30 s pull, heartbeats every 15 s) a read or a follower sat silent for
 * about 45 s (seen under three writers contending for one stream). So pulls are short, heartbeats
 * frequent, and the first sign of trouble closes the consumer: its owner starts another at the
 * first message it has not handed over yet.
 */
import type { ConsumerMessages } from "@nats-io/jetstream";

/** Passed to `consume`: how long one pull waits, and the heartbeat interval while nothing is sent. */
export const ORDERED_CONSUME_SETTINGS = { expires: 2_000, idle_heartbeat: 1_000 } as const;

/** Closes `messages` at its first "no responders" or missed heartbeats, telling `onStuck` why. */
export function closeWhenStuck(messages: ConsumerMessages, stream: string, onStuck: (reason: Error) => void): void {
  void (async () => {
    for await (const notification of messages.status()) {
      if (notification.type !== "no_responders" && notification.type !== "heartbeats_missed") continue;
      onStuck(new Error(`stream ${stream}: the consumer reported ${notification.type === "no_responders" ? "no responders to its pull" : `${notification.count} missed heartbeats`}`));
      await messages.close();
      return;
    }
  })().catch(() => undefined);
}
