/**
 * Identities as one cluster-wide state (issue 27, docs/cluster.md "Identities"): identity stores on
 * several "service nodes" (each its own NATS connection and its own idempotency index), sharing one
 * identity stream on a real 3-node nats-server cluster (R3). Provisioning, tokens and revocations
 * taken on one node reach the others through the tail; commands sent to two nodes at once are
 * decided once, correctly, after the log's fence; a store reopened recovers the same state from a
 * snapshot and the stream's suffix; losing the log answers 503 and never acknowledges. Sign-in as
 * a cluster node wires it (issue 35): a challenge any node issued is redeemed at any node, once, in
 * its lifetime, also for an identity provisioned on another node a moment before.
 *
 * Waiting for another node is waiting for an event (the entry applied there), bounded; never a sleep.
 */
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { jetstreamManager, type JetStreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../engine/clock.js";
import { IdempotencyIndex } from "../../engine/idempotency/index.js";
import { decodeIdentityFrame } from "../../engine/identity/frame.js";
import { IdentityStore } from "../../engine/identity/store.js";
import type { TemporarilyUnavailable } from "../../engine/identity/unavailable.js";
import { connectForJournals } from "../../engine/messaging/nats/connect.js";
import { NatsMessaging } from "../../engine/messaging/nats/nats-messaging.js";
import { decodeBatch } from "../../engine/journal/jetstream-batch.js";
import { JetStreamJournal } from "../../engine/journal/jetstream-journal.js";
import type { IdentityState } from "../../engine/rules/identity/state.js";
import type { Reply } from "../../engine/rules/identity/types.js";
import { AUTHENTICATION_FAILED, AuthService, DEFAULT_MAX_CHALLENGES, loadAuthConfig, type AuthenticationChallenge } from "../../gateway/auth/index.js";
import { IdentityCatchUp } from "../../gateway/cluster-auth.js";
import { openClusterChallengeStore } from "../../gateway/cluster-challenge-store.js";
import { generateKeyPair, signSigningPayload, type Ed25519KeyPair } from "@market-service/client";
import { identityToHttpReply } from "../../gateway/routes/request-helpers.js";
import { NatsCluster } from "../../scripts/nats-cluster.js";

const T0 = Date.parse("2026-03-01T12:00:00.000Z");
const OPERATOR = "op-admin";
/** How long a test waits for an entry to reach another node (an event; the measured delay is far below). */
const PROPAGATION_TIMEOUT_MS = 60_000;

let cluster: NatsCluster;
let inspector: NatsConnection;
let jsm: JetStreamManager;
let streams = 0;
const connections: NatsConnection[] = [];
const stores: IdentityStore[] = [];
const dirs: string[] = [];

beforeAll(async () => {
  cluster = await NatsCluster.start();
  inspector = await connectForJournals(cluster.urls);
  jsm = await jetstreamManager(inspector);
});

afterEach(async () => {
  for (const store of stores.splice(0)) await store.close().catch(() => undefined);
  for (const connection of connections.splice(0)) await connection.close().catch(() => undefined);
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

afterAll(async () => {
  await inspector?.close();
  await cluster?.stop();
});

function freshStream(): string {
  streams += 1;
  return `identity-${process.pid}-${streams}`;
}

interface IdentityNode {
  readonly store: IdentityStore;
  readonly index: IdempotencyIndex;
  readonly clock: ManualClock;
  readonly auth: AuthService;
}

interface NodeOptions {
  snapshotEveryCommands?: number;
  retryDeadlineMs?: number;
  requestTimeoutMs?: number;
  /** Sign-in as a cluster node does it: challenges in this KV bucket, catching up with the log before refusing a key. */
  challengeBucket?: string;
  maxChallenges?: number;
}

/**
 * One service node's identity store on `stream`: its own connection, index, clock and data dir;
 * with `challengeBucket`, its sign-in wired as gateway/service.ts wires a cluster node's.
 */
async function openNode(stream: string, options: NodeOptions = {}): Promise<IdentityNode> {
  const connection = await connectForJournals(cluster.urls);
  connections.push(connection);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "identity-node-"));
  dirs.push(dir);
  const index = new IdempotencyIndex();
  const clock = new ManualClock(T0);
  const store = await IdentityStore.open({
    dir: path.join(dir, "identity"),
    clock,
    idempotency: index,
    isOperator: (actorId) => actorId === OPERATOR,
    ...(options.snapshotEveryCommands === undefined ? {} : { snapshotEveryCommands: options.snapshotEveryCommands }),
    openJournal: () =>
      JetStreamJournal.open({
        messaging: new NatsMessaging(connection),
        name: stream,
        // A short retry deadline is for appends during an outage; creating and opening the stream
        // on a loaded machine (or as the file's first test) may take longer.
        ...(options.retryDeadlineMs === undefined ? {} : { retryDeadlineMs: options.retryDeadlineMs, openDeadlineMs: 60_000 }),
        ...(options.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: options.requestTimeoutMs }),
      }),
  });
  stores.push(store);
  const config = loadAuthConfig({ SERVICE_OPERATOR_ACTORS: OPERATOR }, dir, { maxChallenges: options.maxChallenges ?? DEFAULT_MAX_CHALLENGES });
  if (options.challengeBucket === undefined) return { store, index, clock, auth: new AuthService(config, store) };
  const challenges = await openClusterChallengeStore({
    messaging: new NatsMessaging(connection),
    maxChallenges: config.maxChallenges,
    requestTimeoutMs: options.requestTimeoutMs ?? 5_000,
    bucket: options.challengeBucket,
  });
  const catchUp = new IdentityCatchUp(store);
  return { store, index, clock, auth: new AuthService(config, store, { challenges, catchUp: () => catchUp.wait() }) };
}

function expectOk<B>(reply: Reply<B> | TemporarilyUnavailable): B {
  if (!reply.ok) throw new Error(`expected success, got ${reply.code}: ${reply.message}`);
  return reply.body;
}

interface Provisioned extends Ed25519KeyPair {
  readonly id: string;
  readonly keyId: string;
}

function provisionBody(id: string, pair: Ed25519KeyPair, commandId = `prov-${id}`) {
  return { commandId, principalId: id, actorId: id, keyId: `${id}-key`, publicKey: pair.publicKey };
}

async function provision(node: IdentityNode, id: string): Promise<Provisioned> {
  const pair = generateKeyPair();
  expectOk(await node.store.provisionIdentity(OPERATOR, provisionBody(id, pair)));
  return { ...pair, id, keyId: `${id}-key` };
}

/** A challenge for `who` from `node`'s AuthService, at `node`'s time. */
async function challengeAt(node: IdentityNode, who: Provisioned): Promise<AuthenticationChallenge> {
  return expectOk(await node.auth.createChallenge({ actorId: who.id, keyId: who.keyId }, node.clock.nowMs()));
}

/** The token request for `challenge`, its payload signed with `signer`'s private key. */
function signedBy(challenge: AuthenticationChallenge, signer: Ed25519KeyPair): { challengeId: string; nonce: string; signature: string } {
  return { challengeId: challenge.id, nonce: challenge.nonce, signature: signSigningPayload(challenge.signingPayload, signer.privateKey) };
}

/** The real challenge → token flow on `node`'s AuthService. */
async function login(node: IdentityNode, who: Provisioned): Promise<string> {
  const challenge = await challengeAt(node, who);
  return expectOk(await node.auth.issueToken(signedBy(challenge, who), node.clock.nowMs())).accessToken;
}

/** Waits until `node` has applied everything `source` has (an event, bounded). */
async function caughtUp(node: IdentityNode, source: IdentityNode): Promise<void> {
  await node.store.whenApplied(source.store.appliedSequence, PROPAGATION_TIMEOUT_MS);
}

/** Polls `check` until it holds (a state with no event of its own), failing after `timeoutMs`. */
async function waitFor(what: string, check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The identity commands logged in `stream`, in order (token records left out). */
async function loggedCommands(stream: string): Promise<Array<{ actorId: string; commandId: string; type: string }>> {
  const journal = await JetStreamJournal.open({ messaging: new NatsMessaging(inspector), name: stream });
  const commands: Array<{ actorId: string; commandId: string; type: string }> = [];
  try {
    await journal.read(0, (entry) => {
      const frame = decodeIdentityFrame(entry.payload);
      if (frame.c.type !== "token.issue") commands.push({ actorId: frame.c.meta.actorId, commandId: frame.c.meta.commandId, type: frame.c.type });
    });
  } finally {
    await journal.close();
  }
  return commands;
}

/**
 * Stream `stream` message by message (sequence, Nats-Msg-Id, the commandIds of its entries): printed
 * with a failed count of logged commands, it shows which writer stored what, and in which order.
 */
async function streamOutline(stream: string): Promise<string> {
  const jsm = await jetstreamManager(inspector);
  const last = (await jsm.streams.info(stream)).state.last_seq;
  const lines: string[] = [];
  for (let seq = 1; seq <= last; seq++) {
    const message = await jsm.streams.getMessage(stream, { seq });
    if (message === null) continue;
    const batch = decodeBatch(message.data, seq);
    const commands = batch.payloads.map((payload) => decodeIdentityFrame(payload).c).map((command) => ("commandId" in command.meta ? command.meta.commandId : command.type));
    lines.push(`${seq} ${message.header.get("Nats-Msg-Id")} first entry ${batch.firstSequence}: ${commands.join(", ")}`);
  }
  return lines.join("\n");
}

/** Everything an identity state holds, in a comparable form. */
function describeState(state: IdentityState): unknown {
  const sorted = <V>(map: ReadonlyMap<string, V>): Array<[string, V]> => [...map.entries()].sort(([a], [b]) => a.localeCompare(b));
  return {
    principals: sorted(state.principals),
    actors: sorted(state.actors),
    keys: sorted(state.keys),
    keyIdByPublicKey: sorted(state.keyIdByPublicKey),
    delegations: sorted(state.delegations),
    tokens: sorted(state.tokens).map(([hash, entry]) => [hash, entry.actorId, entry.keyId, entry.audience, entry.issuedAtMs, entry.expiresAtMs]),
    tokensByKey: sorted(state.tokensByKey),
  };
}

describe("identities on a shared JetStream stream", () => {
  it("makes an identity provisioned on node A known on node B, whose index replays the original reply", async () => {
    const stream = freshStream();
    const a = await openNode(stream);
    const b = await openNode(stream);
    const pair = generateKeyPair();
    const body = provisionBody("alice", pair);
    const reply = await a.store.provisionIdentity(OPERATOR, body);
    expect(reply).toMatchObject({ ok: true, status: 201 });
    // A applied it before replying.
    expect(a.store.actor("alice")).toBeDefined();

    await caughtUp(b, a);
    expect(b.store.principal("alice")).toEqual(a.store.principal("alice"));
    expect(b.store.key("alice-key")).toEqual(a.store.key("alice-key"));
    expect(b.store.stats.shared?.framesFollowed).toBe(1);

    // A retry sent to B is the same command: B replays A's reply and logs nothing.
    expect(await b.store.provisionIdentity(OPERATOR, body)).toEqual(reply);
    expect(await b.store.provisionIdentity(OPERATOR, { ...body, keyId: "other-key" })).toMatchObject({ code: "idempotency_conflict" });
    expect(await loggedCommands(stream)).toEqual([{ actorId: OPERATOR, commandId: body.commandId, type: "identity.provision" }]);
  });

  it("accepts on node B a token issued on node A, and refuses it on B once A revoked its key", async () => {
    const stream = freshStream();
    const a = await openNode(stream);
    const b = await openNode(stream);
    const alice = await provision(a, "alice");
    await caughtUp(b, a);

    const token = await login(a, alice);
    expect(a.auth.authenticateBearer(token, a.clock.nowMs())).toBe("alice");
    await caughtUp(b, a);
    expect(b.auth.authenticateBearer(token, b.clock.nowMs())).toBe("alice");

    expectOk(await a.store.revokeKey(OPERATOR, { commandId: "revoke-alice", keyId: alice.keyId }));
    // The node that took the revocation refuses the token as soon as it has replied.
    expect(a.auth.authenticateBearer(token, a.clock.nowMs())).toBeUndefined();
    await caughtUp(b, a);
    expect(b.auth.authenticateBearer(token, b.clock.nowMs())).toBeUndefined();
    expect(b.store.key(alice.keyId)?.revokedAt).toBe(a.store.key(alice.keyId)?.revokedAt);
    // And B no longer hands out tokens for it either.
    expect(await b.auth.createChallenge({ actorId: "alice", keyId: alice.keyId }, b.clock.nowMs())).toMatchObject({ code: "unauthenticated" });
  });

  it("logs one command when the same command reaches A and B at once; both get the same reply", async () => {
    const stream = freshStream();
    const a = await openNode(stream);
    const b = await openNode(stream);
    const body = provisionBody("bob", generateKeyPair(), "same-on-both");
    const [onA, onB] = await Promise.all([a.store.provisionIdentity(OPERATOR, body), b.store.provisionIdentity(OPERATOR, body)]);
    expect(onA).toMatchObject({ ok: true, status: 201 });
    expect(onB).toEqual(onA);
    // Both decided it against the same applied state and appended at once: one was fenced.
    expect((a.store.stats.shared?.fences ?? 0) + (b.store.stats.shared?.fences ?? 0)).toBeGreaterThanOrEqual(1);
    expect(await loggedCommands(stream)).toEqual([{ actorId: OPERATOR, commandId: "same-on-both", type: "identity.provision" }]);
    // Each index now holds the key as a finished identity command: a later retry anywhere replays.
    expect(a.index.pendingCount + b.index.pendingCount).toBe(0);
    expect(await a.store.provisionIdentity(OPERATOR, body)).toEqual(onA);
    expect(await b.store.provisionIdentity(OPERATOR, body)).toEqual(onA);
  });

  it("answers idempotency_conflict to the second of two different commands sent to A and B under one commandId", async () => {
    const stream = freshStream();
    const a = await openNode(stream);
    const b = await openNode(stream);
    const first = provisionBody("carol", generateKeyPair(), "one-id");
    const second = provisionBody("dave", generateKeyPair(), "one-id");
    const [onA, onB] = await Promise.all([a.store.provisionIdentity(OPERATOR, first), b.store.provisionIdentity(OPERATOR, second)]);
    const replies = [onA, onB];
    expect(replies.filter((reply) => reply.ok)).toHaveLength(1);
    expect(replies.filter((reply) => !reply.ok)).toEqual([
      { ok: false, code: "idempotency_conflict", message: "commandId was already used with different content" },
    ]);
    const logged = await loggedCommands(stream);
    expect(logged).toEqual([{ actorId: OPERATOR, commandId: "one-id", type: "identity.provision" }]);
    // Exactly the logged one exists, on both nodes.
    const winner = onA.ok ? "carol" : "dave";
    const loser = onA.ok ? "dave" : "carol";
    await caughtUp(a, b);
    await caughtUp(b, a);
    for (const node of [a, b]) {
      expect(node.store.actor(winner)).toBeDefined();
      expect(node.store.actor(loser)).toBeUndefined();
    }
  });

  it("decides conflicting commands taken on A and B at once against each other after the fence (no lost update)", async () => {
    const stream = freshStream();
    const a = await openNode(stream);
    const b = await openNode(stream);
    const erin = await provision(a, "erin");
    const frank = await provision(a, "frank");
    await caughtUp(b, a);

    // Same principal id, different key material: exactly one is provisioned, the other conflicts.
    const [x, y] = await Promise.all([
      a.store.provisionIdentity(OPERATOR, provisionBody("grace", generateKeyPair(), "grace-on-a")),
      b.store.provisionIdentity(OPERATOR, provisionBody("grace", generateKeyPair(), "grace-on-b")),
    ]);
    expect([x, y].map((reply) => (reply.ok ? reply.status : reply.code)).sort()).toEqual([201, "identity_conflict"].sort());

    // Same delegation id issued on both: one 201, one delegation_conflict.
    const delegation = (commandId: string, delegateActorId: string) => ({ commandId, delegationId: "erin-d1", principalId: "erin", delegateActorId, scopes: ["market:bid" as const] });
    const [d1, d2] = await Promise.all([a.store.issueDelegation("erin", delegation("d-on-a", "frank")), b.store.issueDelegation("erin", delegation("d-on-b", "frank"))]);
    expect([d1, d2].map((reply) => (reply.ok ? reply.status : reply.code)).sort()).toEqual([201, "delegation_conflict"].sort());

    // A revokes frank's key while B logs a token for it: whichever the log holds first, no token of
    // the revoked key authenticates anywhere afterwards.
    const token = await login(b, frank);
    const [revoked] = await Promise.all([
      a.store.revokeKey(OPERATOR, { commandId: "revoke-frank", keyId: frank.keyId }),
      b.store.recordToken({ hash: "racing-token-hash", actorId: "frank", keyId: frank.keyId, audience: "market-service", issuedAtMs: T0, expiresAtMs: T0 + 60_000 }),
    ]);
    expect(revoked).toMatchObject({ ok: true, status: 200 });

    expect((a.store.stats.shared?.fences ?? 0) + (b.store.stats.shared?.fences ?? 0)).toBeGreaterThanOrEqual(1);
    await caughtUp(a, b);
    await caughtUp(b, a);
    expect(a.store.appliedSequence).toBe(b.store.appliedSequence);
    expect(describeState(b.store.state)).toEqual(describeState(a.store.state));
    for (const node of [a, b]) expect(node.auth.authenticateBearer(token, node.clock.nowMs())).toBeUndefined();
    expect(a.store.delegation("erin-d1")).toMatchObject({ principalId: erin.id });
  });

  it("converges under contention: tokens recorded at once on three nodes are each logged once and known on every node", async () => {
    const stream = freshStream();
    const nodes = [await openNode(stream), await openNode(stream), await openNode(stream)];
    const [a] = nodes as [IdentityNode, IdentityNode, IdentityNode];
    const kate = await provision(a, "kate");
    for (const node of nodes) await caughtUp(node, a);
    // Every node stages its records in the same turn and appends them against the same tail:
    // all but one batch are refused, decided again on top of the winner's, and appended again.
    const records = nodes.flatMap((node, n) =>
      Array.from({ length: 30 }, (_, i) => {
        const hash = `token-${n}-${i}`;
        return node.store.recordToken({ hash, actorId: "kate", keyId: kate.keyId, audience: "market-service", issuedAtMs: T0, expiresAtMs: T0 + 60_000 }).then((outcome) => ({ hash, outcome }));
      }),
    );
    const outcomes = await Promise.all(records);
    expect(outcomes.filter((record) => record.outcome !== "recorded")).toEqual([]);
    expect(nodes.reduce((sum, node) => sum + (node.store.stats.shared?.fences ?? 0), 0)).toBeGreaterThanOrEqual(2);
    const last = Math.max(...nodes.map((node) => node.store.appliedSequence));
    for (const node of nodes) await node.store.whenApplied(last, PROPAGATION_TIMEOUT_MS);
    for (const node of nodes) {
      for (const { hash } of outcomes) expect(node.store.state.tokens.has(hash), hash).toBe(true);
      expect(describeState(node.store.state)).toEqual(describeState(a.store.state));
    }
    const journal = await JetStreamJournal.open({ messaging: new NatsMessaging(inspector), name: stream });
    const logged: string[] = [];
    await journal.read(0, (entry) => {
      const frame = decodeIdentityFrame(entry.payload);
      if (frame.c.type === "token.issue") logged.push(frame.c.args.hash);
    });
    await journal.close();
    expect(logged.sort()).toEqual(outcomes.map((record) => record.hash).sort());
  });

  it("reopens on the same state: the newest snapshot in the object store, then the stream's suffix", async () => {
    const stream = freshStream();
    const a = await openNode(stream, { snapshotEveryCommands: 4 });
    const b = await openNode(stream, { snapshotEveryCommands: 4 });
    const people: Provisioned[] = [];
    for (const id of ["h1", "h2", "h3"]) people.push(await provision(a, id));
    people.push(await provision(b, "h4"));
    await caughtUp(b, a);
    await login(b, people[0] as Provisioned);
    expectOk(await b.store.disableActor(OPERATOR, { commandId: "disable-h2", actorId: "h2" }));
    expectOk(await a.store.revokeKey(OPERATOR, { commandId: "revoke-h3", keyId: "h3-key" }));
    await caughtUp(a, b);
    await caughtUp(b, a);
    const snapshots = (a.store.stats.shared?.snapshotsWritten ?? 0) + (b.store.stats.shared?.snapshotsWritten ?? 0);
    expect(snapshots).toBeGreaterThanOrEqual(1);

    const c = await openNode(stream, { snapshotEveryCommands: 4 });
    expect(c.store.recovery.snapshotLsn).not.toBeNull();
    expect(c.store.recovery.snapshotIgnored).toBeNull();
    expect((c.store.recovery.snapshotLsn ?? 0) + c.store.recovery.framesReplayed).toBe(a.store.appliedSequence);
    expect(c.store.appliedSequence).toBe(a.store.appliedSequence);
    expect(describeState(c.store.state)).toEqual(describeState(a.store.state));
    // Its index replays commands logged before and after the snapshot, by either node.
    expect(await c.store.disableActor(OPERATOR, { commandId: "disable-h2", actorId: "h2" })).toMatchObject({ ok: true, status: 200 });
    expect(await c.store.revokeKey(OPERATOR, { commandId: "revoke-h3", keyId: "h3-key" })).toMatchObject({ ok: true, status: 200 });
    expect(await c.store.provisionIdentity(OPERATOR, provisionBody("h1", people[0] as Provisioned))).toMatchObject({ ok: true, status: 201 });
    expect(c.index.pendingCount).toBe(0);
    expect(c.store.stats.shared?.framesWritten).toBe(0);
    // And it follows from there.
    await provision(a, "h5");
    await caughtUp(c, a);
    expect(c.store.actor("h5")).toBeDefined();
  });
});

describe("sign-in across nodes (issue 35): challenges in a KV bucket every node shares", () => {
  /** Three nodes on one fresh identity stream and one fresh challenge bucket. */
  async function threeNodes(options: NodeOptions = {}): Promise<[IdentityNode, IdentityNode, IdentityNode]> {
    const stream = freshStream();
    const nodeOptions = { challengeBucket: `challenges-${stream}`, ...options };
    const a = await openNode(stream, nodeOptions);
    const b = await openNode(stream, nodeOptions);
    const c = await openNode(stream, nodeOptions);
    return [a, b, c];
  }

  it("redeems at B a challenge issued at A, exactly once: the same request at C or A is then refused", async () => {
    const [a, b, c] = await threeNodes();
    const alice = await provision(a, "alice");
    const request = signedBy(await challengeAt(a, alice), alice);
    const grant = expectOk(await b.auth.issueToken(request, b.clock.nowMs()));
    expect(grant).toMatchObject({ tokenType: "Bearer", actorId: "alice" });
    expect(await c.auth.issueToken(request, c.clock.nowMs())).toEqual(AUTHENTICATION_FAILED);
    expect(await a.auth.issueToken(request, a.clock.nowMs())).toEqual(AUTHENTICATION_FAILED);
    // The token B issued is one of the cluster's: it authenticates on A once A has B's entry.
    await caughtUp(a, b);
    expect(a.auth.authenticateBearer(grant.accessToken, a.clock.nowMs())).toBe("alice");
  }, 60_000);

  it("uses a challenge up with a wrong nonce or a wrong signature at one node: the right request at another is refused", async () => {
    const [a, b, c] = await threeNodes();
    const alice = await provision(a, "alice");
    const first = await challengeAt(a, alice);
    expect(await b.auth.issueToken({ ...signedBy(first, alice), nonce: randomBytes(32).toString("base64url") }, b.clock.nowMs())).toEqual(AUTHENTICATION_FAILED);
    expect(await c.auth.issueToken(signedBy(first, alice), c.clock.nowMs())).toEqual(AUTHENTICATION_FAILED);
    const second = await challengeAt(b, alice);
    expect(await c.auth.issueToken(signedBy(second, generateKeyPair()), c.clock.nowMs())).toEqual(AUTHENTICATION_FAILED);
    expect(await a.auth.issueToken(signedBy(second, alice), a.clock.nowMs())).toEqual(AUTHENTICATION_FAILED);
    // A challenge id this service never issued names nothing.
    expect(await a.auth.issueToken({ ...signedBy(await challengeAt(c, alice), alice), challengeId: "no such challenge" }, a.clock.nowMs())).toEqual(AUTHENTICATION_FAILED);
  }, 60_000);

  it("gives a token to exactly one of three nodes redeeming one challenge at the same moment", async () => {
    const nodes = await threeNodes();
    const [a] = nodes;
    const alice = await provision(a, "alice");
    for (let round = 0; round < 5; round++) {
      const request = signedBy(await challengeAt(nodes[round % 3] as IdentityNode, alice), alice);
      const replies = await Promise.all(nodes.map((node) => node.auth.issueToken(request, node.clock.nowMs())));
      expect(replies.filter((reply) => reply.ok)).toHaveLength(1);
      expect(replies.filter((reply) => !reply.ok)).toEqual([AUTHENTICATION_FAILED, AUTHENTICATION_FAILED]);
    }
  }, 60_000);

  it("refuses a challenge from its expiresAt on, by the redeeming node's clock", async () => {
    const [a, b] = await threeNodes();
    const alice = await provision(a, "alice");
    // Default lifetime: 120 s from the issuing node's time.
    const late = await challengeAt(a, alice);
    expect(late.expiresAt).toBe(new Date(T0 + 120_000).toISOString());
    b.clock.set(T0 + 120_000);
    expect(await b.auth.issueToken(signedBy(late, alice), b.clock.nowMs())).toEqual(AUTHENTICATION_FAILED);
    const inTime = await challengeAt(a, alice);
    b.clock.set(T0 + 119_999);
    expect(await b.auth.issueToken(signedBy(inTime, alice), b.clock.nowMs())).toMatchObject({ ok: true, status: 201 });
  }, 60_000);

  it("signs in at B then C identities provisioned at A a moment before, without waiting for the tail", async () => {
    const [a, b, c] = await threeNodes();
    const failures: string[] = [];
    const signIn = async (i: number): Promise<void> => {
      const who = await provision(a, `fresh-${i}`);
      // No wait here: B and C may not have applied the provisioning yet; they catch up themselves.
      const challenge = await b.auth.createChallenge({ actorId: who.id, keyId: who.keyId }, b.clock.nowMs());
      if (!challenge.ok) return void failures.push(`${who.id} challenge at B: ${challenge.code}`);
      const grant = await c.auth.issueToken(signedBy(challenge.body, who), c.clock.nowMs());
      if (!grant.ok) return void failures.push(`${who.id} token at C: ${grant.code}`);
      if (c.auth.authenticateBearer(grant.body.accessToken, c.clock.nowMs()) !== who.id) failures.push(`${who.id}: token refused at C`);
    };
    // 60 principals, 10 at a time.
    for (let batch = 0; batch < 6; batch++) await Promise.all(Array.from({ length: 10 }, (_, i) => signIn(batch * 10 + i)));
    expect(failures).toEqual([]);
  }, 120_000);

  it("keeps at most maxChallenges in the bucket, dropping the oldest: a flood shortens lifetimes, it locks nobody out", async () => {
    const [a, b] = await threeNodes({ maxChallenges: 3 });
    const alice = await provision(a, "alice");
    const challenges: AuthenticationChallenge[] = [];
    for (let i = 0; i < 4; i++) challenges.push(await challengeAt(a, alice));
    const [oldest, , , newest] = challenges as [AuthenticationChallenge, AuthenticationChallenge, AuthenticationChallenge, AuthenticationChallenge];
    expect(await b.auth.issueToken(signedBy(oldest, alice), b.clock.nowMs())).toEqual(AUTHENTICATION_FAILED);
    expect(await b.auth.issueToken(signedBy(newest, alice), b.clock.nowMs())).toMatchObject({ ok: true, status: 201 });
  }, 60_000);
});

describe("identities when the log is lost", () => {
  it("answers 503 (never an acknowledgement) while quorum is lost, authenticates from the last state, and logs again once it is back", async () => {
    const stream = freshStream();
    const a = await openNode(stream, { retryDeadlineMs: 1_500, requestTimeoutMs: 500 });
    const b = await openNode(stream, { retryDeadlineMs: 1_500, requestTimeoutMs: 500 });
    const ivan = await provision(a, "ivan");
    const kate = await provision(a, "kate");
    const token = await login(a, ivan);
    await caughtUp(b, a);
    const applied = a.store.appliedSequence;

    // Two of the three NATS nodes die: no quorum, no append.
    const down = [0, 1];
    let challenge: AuthenticationChallenge | undefined;
    for (const index of down) await cluster.kill(index);
    try {
      const revoke = { commandId: "revoke-ivan", keyId: ivan.keyId };
      const refused = await a.store.revokeKey(OPERATOR, revoke);
      expect(refused).toMatchObject({ ok: false, code: "service_unavailable" });
      expect(a.index.pendingCount).toBe(0); // the claim was abandoned: a retry is decided afresh
      const http = identityToHttpReply(refused);
      expect(http.status).toBe(503);
      expect(http.headers?.["retry-after"]).toBe("1");
      // Reads go on from the last applied state: the token still authenticates on both nodes.
      expect(a.store.unavailable).toBe(false);
      expect(a.store.writable).toBe(false);
      expect(a.auth.authenticateBearer(token, a.clock.nowMs())).toBe("ivan");
      expect(b.auth.authenticateBearer(token, b.clock.nowMs())).toBe("ivan");
      // While the journal is being reopened, commands and tokens are refused at once.
      expect(await a.store.provisionIdentity(OPERATOR, provisionBody("judy", generateKeyPair()))).toMatchObject({ code: "service_unavailable" });
      expect(await a.store.recordToken({ hash: "while-down", actorId: "ivan", keyId: ivan.keyId, audience: "market-service", issuedAtMs: T0, expiresAtMs: T0 + 1 })).toBe("unavailable");
      // A token that cannot be logged: 503, and its challenge is not used up (below).
      challenge = await challengeAt(a, kate);
      const grant = await a.auth.issueToken(signedBy(challenge, kate), a.clock.nowMs());
      expect(grant).toMatchObject({ ok: false, code: "service_unavailable" });
    } finally {
      // Both at once: one restarted alone waits for a meta leader beside a node that lost quorum.
      await cluster.restart(...down);
    }

    // The journal is reopened in the background; the same command is then logged (or, had the
    // refused attempt been stored after all, replayed), and reaches B.
    await waitFor("node A's identity journal reopened", () => a.store.writable, 60_000);
    const reply = await a.store.revokeKey(OPERATOR, { commandId: "revoke-ivan", keyId: ivan.keyId });
    expect(reply).toMatchObject({ ok: true, status: 200 });
    expect(a.store.stats.shared?.reopens).toBeGreaterThanOrEqual(1);
    expect(a.store.appliedSequence).toBeGreaterThan(applied);
    expect(a.auth.authenticateBearer(token, a.clock.nowMs())).toBeUndefined();
    await caughtUp(b, a);
    expect(b.auth.authenticateBearer(token, b.clock.nowMs())).toBeUndefined();
    const revokes = (await loggedCommands(stream)).filter((command) => command.commandId === "revoke-ivan");
    expect(revokes, await streamOutline(stream)).toHaveLength(1);
    // The token request answered 503 did not use its challenge up: the same request now succeeds.
    expect(challenge).toBeDefined();
    const retried = await a.auth.issueToken(signedBy(challenge as AuthenticationChallenge, kate), a.clock.nowMs());
    expect(retried).toMatchObject({ ok: true, status: 201, body: { actorId: "kate" } });
  });

  it("answers sign-in 503 while the challenge bucket has no quorum, never 401; the same requests succeed once it is back", async () => {
    const stream = freshStream();
    const options = { retryDeadlineMs: 1_500, requestTimeoutMs: 500, challengeBucket: `challenges-${stream}` };
    // The test before restarted two nodes: the nodes open with short deadlines, on a settled cluster.
    await cluster.waitUntilReady();
    const a = await openNode(stream, options);
    const b = await openNode(stream, options);
    const lena = await provision(a, "lena");
    const request = signedBy(await challengeAt(a, lena), lena);

    // The identity stream's leader is one of the two killed: a leader left without quorum still
    // holds every acknowledged entry for a few seconds, and from it a node could rightly tell that
    // an actor does not exist; from the survivor, a follower, it cannot.
    const leader = (await (await jetstreamManager(inspector)).streams.info(stream)).cluster?.leader;
    if (leader === undefined) throw new Error(`stream ${stream} has no leader before the test`);
    const down = [cluster.indexOf(leader), (cluster.indexOf(leader) + 1) % 3];
    for (const index of down) await cluster.kill(index);
    try {
      const unavailable = { ok: false, code: "service_unavailable" };
      // A challenge cannot be recorded, nor one read: 503 with Retry-After, whatever the key.
      const asked = await b.auth.createChallenge({ actorId: lena.id, keyId: lena.keyId }, b.clock.nowMs());
      expect(asked).toMatchObject(unavailable);
      expect(identityToHttpReply(asked).status).toBe(503);
      expect(await b.auth.issueToken(request, b.clock.nowMs())).toMatchObject(unavailable);
      // An actor this node does not know may have been provisioned elsewhere: it cannot tell now.
      expect(await b.auth.createChallenge({ actorId: "nobody", keyId: "nobody-key" }, b.clock.nowMs())).toMatchObject(unavailable);
    } finally {
      await cluster.restart(...down);
    }

    // Quorum is back: the 503s used nothing up, so the same token request, sent again as a client
    // does after a 503, gets the token (once the bucket and the identity log answer again).
    await waitFor("node B's identity journal reopened", () => b.store.writable, 60_000);
    let grant = await b.auth.issueToken(request, b.clock.nowMs());
    const deadline = Date.now() + 60_000;
    while (!grant.ok && grant.code === "service_unavailable" && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      grant = await b.auth.issueToken(request, b.clock.nowMs());
    }
    expect(grant).toMatchObject({ ok: true, status: 201, body: { actorId: "lena" } });
    expect(await a.auth.issueToken(request, a.clock.nowMs())).toEqual(AUTHENTICATION_FAILED);
    expect(await b.auth.createChallenge({ actorId: "nobody", keyId: "nobody-key" }, b.clock.nowMs())).toEqual(AUTHENTICATION_FAILED);
  });
});
