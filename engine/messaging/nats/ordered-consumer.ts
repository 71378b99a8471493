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
 *
 * Not every way of getting stuck is reported. When the connection drops, the client stops watching
 * heartbeats until it has checked, after the reconnect, that its consumer still exists; that check
 * repeats for as long as it neither succeeds nor hears "not found", and a consumer that lived on the
 * killed server (its stream's leader) is answered by no one: the follower sat silent for good (a
 * test run saw it after kill -9 of the leader its connection was on). So silence itself is a sign:
 * no message and no heartbeat for several heartbeat intervals closes the consumer too.
 */
import type { ConsumerMessages } from "@nats-io/jetstream";

/** Passed to `consume`: how long one pull waits, and the heartbeat interval while nothing is sent. */
export const ORDERED_CONSUME_SETTINGS = { expires: 2_000, idle_heartbeat: 1_000 } as const;

/** Silence (no message, no heartbeat) after which a consumer counts as stuck: several missed heartbeats and a pull's expiry. */
const STUCK_AFTER_SILENCE_MS = 3 * (ORDERED_CONSUME_SETTINGS.expires + ORDERED_CONSUME_SETTINGS.idle_heartbeat);

/** What the consumer's callback tells the watch: a message arrived (a sign of life, like a heartbeat). */
export interface StuckWatch {
  delivered(): void;
}

/**
 * Closes `messages` at its first "no responders", missed heartbeats, or a silence longer than
 * STUCK_AFTER_SILENCE_MS, telling `onStuck` why.
 */
export function closeWhenStuck(messages: ConsumerMessages, stream: string, onStuck: (reason: Error) => void): StuckWatch {
  let lastSignAtMs = Date.now();
  let done = false;
  const stuck = (reason: string): void => {
    if (done) return;
    done = true;
    clearInterval(silence);
    onStuck(new Error(`stream ${stream}: the consumer ${reason}`));
    void messages.close();
  };
  const silence = setInterval(() => {
    const silentMs = Date.now() - lastSignAtMs;
    if (silentMs > STUCK_AFTER_SILENCE_MS) stuck(`was silent (no message, no heartbeat) for ${silentMs} ms`);
  }, ORDERED_CONSUME_SETTINGS.idle_heartbeat);
  silence.unref();
  void messages.closed().finally(() => {
    done = true;
    clearInterval(silence);
  });
  void (async () => {
    for await (const notification of messages.status()) {
      if (notification.type === "heartbeat") lastSignAtMs = Date.now();
      else if (notification.type === "no_responders") stuck("reported no responders to its pull");
      else if (notification.type === "heartbeats_missed") stuck(`reported ${notification.count} missed heartbeats`);
      if (done) return;
    }
  })().catch(() => undefined);
  return {
    delivered() {
      lastSignAtMs = Date.now();
    },
  };
}
