/**
 * `npm run bench:identity-propagation`: how long a revocation taken on one service node takes to
 * be enforced on the others (issue 27: goal ≤ 1 s), on a real 3-node nats-server cluster on this
 * machine (R3, `sync_interval: always`; scripts/nats-cluster.ts) and the identity
 * stream shared by the nodes (engine/identity/shared-log.ts).
 *
 * Node A is this process; the followers (`--followers`, default 2, so three service nodes) are
 * processes of their own (identity-propagation-node.ts), each with its own NATS connection. Each
 * round: a fresh identity is provisioned on A and logs in there (the real challenge → token flow);
 * once every follower accepts the token, A revokes the key. Measured, on the machine's monotonic
 * clock (shared by the processes):
 *   - revoke → refusal: from A's revoke call to the first moment the token is refused on a
 *     follower (checked after every entry the follower applies, the only moments its state changes);
 *   - ack → refusal: from A's reply (A itself refuses from then on: checked) to that moment;
 *   - A's revoke latency (the append, acknowledged by a quorum).
 * Then the contention phase (identity-token-storm.ts): every node records tokens at once for
 * `--storm-seconds` with `--storm-in-flight` records outstanding each; tokens/s, appends, fences,
 * and any record answered "unavailable" (a batch fenced too many times in a row).
 *
 *   npm run bench:identity-propagation -- [--rounds 200] [--followers 2] [--storm-seconds 5] [--storm-in-flight 16]
 *
 * Needs scripts/fetch-nats-server.sh. Prints p50/p90/p99/max; writes results/<date>-identity-propagation.json.
 */
import { fork, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { systemClock } from "../engine/clock.js";
import { IdempotencyIndex } from "../engine/idempotency/index.js";
import { IdentityStore } from "../engine/identity/store.js";
import { connectForJournals } from "../engine/messaging/nats/connect.js";
import { NatsMessaging } from "../engine/messaging/nats/nats-messaging.js";
import { JetStreamJournal } from "../engine/journal/jetstream-journal.js";
import { AuthService, loadAuthConfig } from "../gateway/auth/index.js";
import { generateKeyPair, signSigningPayload } from "@market-service/client";
import { NatsCluster } from "../scripts/nats-cluster.js";
import { numberArg } from "./args.js";
import type { FromNode, ToNode } from "./identity-propagation-node.js";
import { tokenStorm, type StormOutcome } from "./identity-token-storm.js";
import { percentile } from "./percentile.js";
import { RESULTS_DIR, freshResultStem } from "./result-stem.js";

const ROUNDS = numberArg("rounds", 200);
const FOLLOWERS = numberArg("followers", 2);
const STORM_SECONDS = numberArg("storm-seconds", 5);
const STORM_IN_FLIGHT = numberArg("storm-in-flight", 16);
const OPERATOR = "bench-operator";
const STREAM = "identity";
/** Bound on any one wait for a follower (an event; a round that exceeds it fails the bench). */
const WAIT_MS = 30_000;

class Follower {
  private readonly waiters = new Map<string, (message: FromNode) => void>();
  private failure: string | undefined;

  constructor(readonly child: ChildProcess) {
    child.on("message", (message: FromNode) => {
      if ("failed" in message) this.failure = message.failed;
      const key =
        "ready" in message ? `ready-${message.ready}` : "refused" in message ? `refused-${message.refused}` : "started" in message ? "started" : "stormed" in message ? "stormed" : "failed";
      this.waiters.get(key)?.(message);
      this.waiters.delete(key);
    });
    child.on("exit", (code) => {
      this.failure ??= `follower exited with code ${code}`;
      for (const wake of this.waiters.values()) wake({ failed: this.failure });
      this.waiters.clear();
    });
  }

  /** Resolves with the follower's message `key` (registered before the request that causes it). */
  expect(key: string): Promise<FromNode> {
    if (this.failure !== undefined) return Promise.reject(new Error(this.failure));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`follower ${this.child.pid}: no ${key} within ${WAIT_MS} ms`)), WAIT_MS);
      this.waiters.set(key, (message) => {
        clearTimeout(timer);
        if ("failed" in message) reject(new Error(message.failed));
        else resolve(message);
      });
    });
  }

  send(message: ToNode): void {
    this.child.send(message);
  }
}

const summary = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const round = (ms: number): number => Math.round(ms * 100) / 100;
  return {
    samples: sorted.length,
    p50Ms: round(percentile(sorted, 50)),
    p90Ms: round(percentile(sorted, 90)),
    p99Ms: round(percentile(sorted, 99)),
    maxMs: round(sorted[sorted.length - 1] ?? Number.NaN),
  };
};
const msBetween = (from: bigint, to: bigint): number => Number(to - from) / 1e6;

const dir = mkdtempSync(path.join(tmpdir(), "identity-propagation-"));
const cluster = await NatsCluster.start();
const connection = await connectForJournals(cluster.urls);
const followers: Follower[] = [];
const revokeToRefusal: number[] = [];
const ackToRefusal: number[] = [];
const revokeLatency: number[] = [];
const storms: StormOutcome[] = [];
let store: IdentityStore | undefined;
try {
  store = await IdentityStore.open({
    dir: path.join(dir, "identity"),
    clock: systemClock,
    idempotency: new IdempotencyIndex(),
    isOperator: (actorId) => actorId === OPERATOR,
    openJournal: () => JetStreamJournal.open({ messaging: new NatsMessaging(connection), name: STREAM }),
  });
  const auth = new AuthService(loadAuthConfig({ SERVICE_OPERATOR_ACTORS: OPERATOR }, dir), store);
  const nodeScript = path.join(import.meta.dirname, "identity-propagation-node.ts");
  for (let i = 0; i < FOLLOWERS; i++) {
    const follower = new Follower(fork(nodeScript, [STREAM, cluster.urls.join(",")], { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] }));
    await follower.expect("started");
    followers.push(follower);
  }

  for (let round = 1; round <= ROUNDS; round++) {
    const id = `user-${round}`;
    const pair = generateKeyPair();
    const provisioned = await store.provisionIdentity(OPERATOR, { commandId: `provision-${id}`, principalId: id, actorId: id, keyId: `${id}-key`, publicKey: pair.publicKey });
    if (!provisioned.ok) throw new Error(`provisioning ${id}: ${provisioned.code} ${provisioned.message}`);
    const challenge = await auth.createChallenge({ actorId: id, keyId: `${id}-key` }, systemClock.nowMs());
    if (!challenge.ok) throw new Error(`challenge for ${id}: ${challenge.code}`);
    const grant = await auth.issueToken(
      { challengeId: challenge.body.id, nonce: challenge.body.nonce, signature: signSigningPayload(challenge.body.signingPayload, pair.privateKey) },
      systemClock.nowMs(),
    );
    if (!grant.ok) throw new Error(`token for ${id}: ${grant.code} ${grant.message}`);
    const token = grant.body.accessToken;

    const ready = followers.map((follower) => follower.expect(`ready-${round}`));
    for (const follower of followers) follower.send({ watch: { id: round, token, readySequence: store.appliedSequence } });
    await Promise.all(ready);

    const refused = followers.map((follower) => follower.expect(`refused-${round}`));
    const revokeAt = process.hrtime.bigint();
    const revoked = await store.revokeKey(OPERATOR, { commandId: `revoke-${id}`, keyId: `${id}-key` });
    const ackAt = process.hrtime.bigint();
    if (!revoked.ok) throw new Error(`revoking ${id}: ${revoked.code} ${revoked.message}`);
    if (auth.authenticateBearer(token, systemClock.nowMs()) !== undefined) throw new Error(`node A still accepts ${id}'s token after its revocation was acknowledged`);
    revokeLatency.push(msBetween(revokeAt, ackAt));
    for (const message of await Promise.all(refused)) {
      if (!("refused" in message)) throw new Error("unexpected follower message");
      const atNs = BigInt(message.atNs);
      revokeToRefusal.push(msBetween(revokeAt, atNs));
      ackToRefusal.push(msBetween(ackAt, atNs));
    }
  }

  // Contention: every node records tokens for one key at once, for a while.
  if (STORM_SECONDS > 0) {
    const pair = generateKeyPair();
    const provisioned = await store.provisionIdentity(OPERATOR, { commandId: "provision-storm", principalId: "storm", actorId: "storm", keyId: "storm-key", publicKey: pair.publicKey });
    if (!provisioned.ok) throw new Error(`provisioning the storm's actor: ${provisioned.code}`);
    const order = { actorId: "storm", keyId: "storm-key", readySequence: store.appliedSequence, seconds: STORM_SECONDS, inFlight: STORM_IN_FLIGHT };
    const done = followers.map((follower) => follower.expect("stormed"));
    for (const follower of followers) follower.send({ storm: order });
    const own = tokenStorm(store, order);
    for (const message of await Promise.all(done)) if ("stormed" in message) storms.push(message.stormed);
    storms.unshift(await own);
  }
} finally {
  for (const follower of followers) follower.send({ stop: true });
  await Promise.all(followers.map((follower) => new Promise((resolve) => (follower.child.exitCode !== null ? resolve(undefined) : follower.child.once("exit", resolve)))));
  await store?.close();
  await connection.close();
  await cluster.stop();
  rmSync(dir, { recursive: true, force: true });
}

const result = {
  bench: "identity-propagation",
  date: new Date().toISOString(),
  setup: `3 nats-server 2.10 nodes (R3, sync_interval: always) and ${FOLLOWERS + 1} service nodes' identity stores (node A in the driver, ${FOLLOWERS} follower processes), one machine`,
  rounds: ROUNDS,
  followers: FOLLOWERS,
  revokeToFirstRefusalOnFollower: summary(revokeToRefusal),
  revokeAckToFirstRefusalOnFollower: summary(ackToRefusal),
  revokeLatencyOnNodeA: summary(revokeLatency),
  // Negative: the follower refused before node A's reply was processed (the tail delivered the
  // entry before the publish's acknowledgement reached A).
  followerRefusedBeforeAck: ackToRefusal.filter((ms) => ms < 0).length,
  tokenStorm: {
    secondsPerNode: STORM_SECONDS,
    inFlightPerNode: STORM_IN_FLIGHT,
    perNode: storms,
    tokensRecordedPerSecond: Math.round(storms.reduce((sum, node) => sum + node.recorded / node.seconds, 0)),
    unavailable: storms.reduce((sum, node) => sum + node.unavailable, 0),
    fences: storms.reduce((sum, node) => sum + node.fences, 0),
    commits: storms.reduce((sum, node) => sum + node.commits, 0),
  },
};
const file = path.join(RESULTS_DIR, `${freshResultStem("identity-propagation")}.json`);
writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
console.table({
  "revoke → first refusal on a follower": result.revokeToFirstRefusalOnFollower,
  "A's reply → first refusal on a follower": result.revokeAckToFirstRefusalOnFollower,
  "revoke latency on A (quorum ack)": result.revokeLatencyOnNodeA,
});
console.table(storms);
console.info(
  `token storm (${FOLLOWERS + 1} nodes, ${STORM_IN_FLIGHT} in flight each, ${STORM_SECONDS} s): ${result.tokenStorm.tokensRecordedPerSecond} tokens/s recorded in all, ${result.tokenStorm.commits} appends, ${result.tokenStorm.fences} fenced, ${result.tokenStorm.unavailable} answered unavailable`,
);
console.info(`followers that refused before A had its acknowledgement: ${result.followerRefusedBeforeAck} of ${ackToRefusal.length}; written ${path.relative(process.cwd(), file)}`);
