/**
 * One follower service node of `npm run bench:identity-propagation` (identity-propagation.bench.ts),
 * a process of its own: an IdentityStore on the shared identity stream, with its own NATS
 * connection, and the real bearer check (AuthService) over it.
 *
 * Told which token to watch, it checks the token after every entry it applies (the only moments
 * its state changes) and reports the monotonic time of the first refusal: the moment a request
 * carrying that token would first be refused on this node.
 *
 * Messages (IPC): in { watch: { id, token, readySequence } } → out { ready: id } once entry
 * `readySequence` is applied and the token authenticates; then out { refused: id, atNs } once it
 * does not. In { storm } → records tokens as fast as it can for a while (identity-token-storm.ts)
 * → out { stormed }. In { stop: true } → closes and exits. Argv: <stream> <nats urls, comma-separated>.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { systemClock } from "../engine/clock.js";
import { IdempotencyIndex } from "../engine/idempotency/index.js";
import { IdentityStore } from "../engine/identity/store.js";
import { connectForJournals } from "../engine/messaging/nats/connect.js";
import { NatsMessaging } from "../engine/messaging/nats/nats-messaging.js";
import { JetStreamJournal } from "../engine/journal/jetstream-journal.js";
import { AuthService, loadAuthConfig } from "../gateway/auth/index.js";
import { tokenStorm, type StormOrder, type StormOutcome } from "./identity-token-storm.js";

export type ToNode =
  | { watch: { id: number; token: string; readySequence: number } }
  | { storm: StormOrder }
  | { stop: true };
export type FromNode = { started: true } | { ready: number } | { refused: number; atNs: string } | { stormed: StormOutcome } | { failed: string };

const [stream, urls] = process.argv.slice(2);
if (stream === undefined || urls === undefined || process.send === undefined) throw new Error("usage: identity-propagation-node <stream> <nats urls> (forked with IPC)");
const send = (message: FromNode): void => {
  process.send?.(message);
};

const dir = mkdtempSync(path.join(tmpdir(), "identity-propagation-node-"));
const connection = await connectForJournals(urls.split(","));
const store = await IdentityStore.open({
  dir: path.join(dir, "identity"),
  clock: systemClock,
  idempotency: new IdempotencyIndex(),
  isOperator: () => false,
  openJournal: () => JetStreamJournal.open({ messaging: new NatsMessaging(connection), name: stream }),
});
const auth = new AuthService(loadAuthConfig({}, dir), store);

let watching: { id: number; token: string; readySequence: number; ready: boolean } | undefined;

/** Checks the watched token now; called after every applied entry. */
function check(): void {
  const watch = watching;
  if (watch === undefined) return;
  const accepted = auth.authenticateBearer(watch.token, systemClock.nowMs()) !== undefined;
  if (!watch.ready) {
    if (store.appliedSequence >= watch.readySequence && accepted) {
      watch.ready = true;
      send({ ready: watch.id });
    }
    return;
  }
  if (!accepted) {
    const atNs = process.hrtime.bigint();
    watching = undefined;
    send({ refused: watch.id, atNs: atNs.toString() });
  }
}

let stopping = false;
async function applyLoop(): Promise<void> {
  while (!stopping) {
    // One day: an idle node waits for the next entry; a stop ends the wait through `stopping`.
    await store.whenApplied(store.appliedSequence + 1, 86_400_000).catch(() => undefined);
    check();
  }
}

process.on("message", (message: ToNode) => {
  if ("watch" in message) {
    watching = { ...message.watch, ready: false };
    check();
    return;
  }
  if ("storm" in message) {
    tokenStorm(store, message.storm).then(
      (outcome) => send({ stormed: outcome }),
      (error: unknown) => send({ failed: error instanceof Error ? error.message : String(error) }),
    );
    return;
  }
  stopping = true;
  void (async () => {
    await store.close();
    await connection.close();
    rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  })();
});

send({ started: true });
applyLoop().catch((error: unknown) => {
  send({ failed: error instanceof Error ? error.message : String(error) });
  process.exit(1);
});
