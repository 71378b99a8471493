import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { nodeStorageFs, type StorageFs } from "../../storage/index.js";
import { generateKeyPair } from "@market-service/client";
import { commandFingerprint } from "../../engine/idempotency/fingerprint.js";
import { OPERATOR, T0, inThreadJournal, nextCommandId, openHarness, provisionSelf } from "./helpers.js";

const provision = (id: string) => ({
  commandId: nextCommandId("p"),
  principalId: id,
  actorId: id,
  keyId: `${id}-key`,
  publicKey: generateKeyPair().publicKey,
});

describe("identity store durability", () => {
  it("group-commits every command of one event-loop turn with one commitSync", async () => {
    const { store } = await openHarness();
    const commitsBefore = store.stats.commits;
    const replies = await Promise.all([
      store.provisionIdentity(OPERATOR, provision("a")),
      store.provisionIdentity(OPERATOR, provision("b")),
      store.provisionIdentity(OPERATOR, provision("c")),
      store.issueDelegation("a", { commandId: "d", delegationId: "a-b", principalId: "a", delegateActorId: "b", scopes: ["market:bid"] }),
    ]);
    expect(replies.map((r) => r.ok)).toEqual([true, true, true, true]); // the delegation saw the staged provisioning
    expect(store.stats.commits - commitsBefore).toBe(1);
    expect(store.stats.lastLsn).toBe(4);
  });

  it("answers a concurrent identical command from the first one's frame (pending claim)", async () => {
    const { store } = await openHarness();
    const body = provision("a");
    const [first, second] = await Promise.all([store.provisionIdentity(OPERATOR, body), store.provisionIdentity(OPERATOR, body)]);
    expect(second).toEqual(first);
    expect(store.stats.lastLsn).toBe(1);
  });

  it("shares commandIds with the other endpoints through the one idempotency index", async () => {
    const h = await openHarness();
    await provisionSelf(h.store, "alice");
    // A market command already used ("alice", "shared") in shard 3's log.
    const claim = h.index.claim("alice", "shared", commandFingerprint("market.create_draft", { marketId: "m" }));
    if (claim.kind !== "fresh") throw new Error("expected a fresh claim");
    claim.complete({ owner: 3, position: 0 });
    const reply = await h.store.issueDelegation("alice", {
      commandId: "shared",
      delegationId: "x",
      principalId: "alice",
      delegateActorId: "alice-2",
      scopes: ["market:bid"],
    });
    expect(reply).toEqual({ ok: false, code: "idempotency_conflict", message: "commandId was already used with different content" });
    // The other direction: the identity log's entry is in the index under owner "identity".
    const body = provision("bob");
    await h.store.provisionIdentity(OPERATOR, body);
    const other = h.index.claim(OPERATOR, body.commandId, commandFingerprint("market.publish", {}));
    expect(other.kind).toBe("conflict");
  });

  it("restores every logged command into a fresh index, with replyAt reproducing the replies", async () => {
    const h = await openHarness();
    const bodies = [provision("a"), provision("b")];
    const replies = [];
    for (const body of bodies) replies.push(await h.store.provisionIdentity(OPERATOR, body));
    const reopened = await h.reopen();
    expect(reopened.store.recovery).toMatchObject({ snapshotLsn: null, framesReplayed: 2, commandsRestored: 2 });
    for (const [i, body] of bodies.entries()) {
      const claim = reopened.index.claim(OPERATOR, body.commandId, commandFingerprint("identity.provision", {
        principalId: body.principalId,
        actorId: body.actorId,
        keyId: body.keyId,
        publicKey: body.publicKey,
      }));
      if (claim.kind !== "replay") throw new Error(`expected a replay, got ${claim.kind}`);
      expect(claim.location.owner).toBe("identity");
      expect(await reopened.store.replyAt(claim.location.position)).toEqual(replies[i]);
    }
  });

  it("snapshots every N commands and recovers from the newest snapshot plus the frames after it", async () => {
    const h = await openHarness({ snapshotEveryCommands: 3 });
    const bodies = [];
    for (const id of ["a", "b", "c", "d", "e", "f", "g"]) {
      const body = provision(id);
      bodies.push(body);
      await h.store.provisionIdentity(OPERATOR, body);
      h.clock.advance(1_000);
    }
    await h.store.issueDelegation("a", { commandId: "del", delegationId: "a-b", principalId: "a", delegateActorId: "b", scopes: ["market:bid"] });
    expect(h.store.stats.snapshotsWritten).toBe(2);
    const snapshotFiles = fs.readdirSync(path.join(h.dir, "snapshots"));
    expect(snapshotFiles.filter((name) => name.endsWith(".snap"))).toHaveLength(2);

    const reopened = await h.reopen();
    expect(reopened.store.recovery).toMatchObject({ snapshotLsn: 6, snapshotIgnored: null, framesReplayed: 2, commandsRestored: 8 });
    expect(reopened.store.principal("a")).toEqual(h.store.principal("a"));
    expect(reopened.store.delegation("a-b")?.validFrom).toBe(new Date(T0 + 7_000).toISOString());
    // A command from before the snapshot still replays (its index entry came from the snapshot).
    const first = bodies[0];
    if (first === undefined) throw new Error("no body");
    expect(await reopened.store.provisionIdentity(OPERATOR, first)).toMatchObject({ ok: true, status: 201 });
    expect(reopened.store.stats.lastLsn).toBe(8);
  });

  it("ignores a snapshot that does not match the log's chain and replays everything", async () => {
    const a = await openHarness({ snapshotEveryCommands: 2 });
    for (const id of ["a", "b"]) await a.store.provisionIdentity(OPERATOR, provision(id));
    await a.store.close(); // the snapshot is written after the reply, on the journal's thread
    expect(a.store.stats.snapshotsWritten).toBe(1);
    const b = await openHarness();
    for (const id of ["x", "y", "z"]) await b.store.provisionIdentity(OPERATOR, provision(id));
    fs.mkdirSync(path.join(b.dir, "snapshots"), { recursive: true });
    for (const name of fs.readdirSync(path.join(a.dir, "snapshots"))) {
      fs.copyFileSync(path.join(a.dir, "snapshots", name), path.join(b.dir, "snapshots", name));
    }
    const reopened = await b.reopen();
    expect(reopened.store.recovery.snapshotLsn).toBeNull();
    expect(reopened.store.recovery.snapshotIgnored).toBe("snapshot at lsn 2 does not match the log's chain");
    expect(reopened.store.recovery.framesReplayed).toBe(3);
    expect(reopened.store.principal("a")).toBeUndefined();
    expect(reopened.store.principal("z")).toBeDefined();
  });

  it("fails stop when a commit fails: internal_error now and for every later command, closed reads", async () => {
    let failSync = false;
    const failingFs: StorageFs = {
      ...nodeStorageFs,
      fdatasyncSync: (fd) => {
        if (failSync) throw new Error("EIO: injected fdatasync failure");
        nodeStorageFs.fdatasyncSync(fd);
      },
    };
    const h = await openHarness({ openJournal: inThreadJournal(failingFs) });
    await provisionSelf(h.store, "alice");
    failSync = true;
    const body = provision("bob");
    expect(await h.store.provisionIdentity(OPERATOR, body)).toEqual({
      ok: false,
      code: "internal_error",
      message: "identity store is unavailable",
    });
    expect(h.store.unavailable).toBe(true);
    expect(h.index.pendingCount).toBe(0); // the claim was abandoned
    expect(await h.store.provisionIdentity(OPERATOR, provision("carol"))).toMatchObject({ code: "internal_error" });
    expect(await h.store.recordToken({ hash: "h", actorId: "alice", keyId: "alice-key", audience: "a", issuedAtMs: T0, expiresAtMs: T0 + 1 })).toBe("unavailable");

    // After a restart the outcome of the failed commit is whatever reached the disk; either way the
    // same command gets one consistent answer.
    failSync = false;
    const reopened = await h.reopen({ openJournal: inThreadJournal(nodeStorageFs) });
    const retry = await reopened.store.provisionIdentity(OPERATOR, body);
    expect(retry).toMatchObject({ ok: true, status: 201 });
    expect(await reopened.store.provisionIdentity(OPERATOR, body)).toEqual(retry);
  });

  it("stamps non-decreasing server times even if the clock steps back", async () => {
    const h = await openHarness();
    await provisionSelf(h.store, "a");
    h.clock.set(T0 - 60_000);
    await provisionSelf(h.store, "b");
    expect(h.store.principal("b")?.createdAt).toBe(new Date(T0).toISOString());
    const reopened = await h.reopen();
    await provisionSelf(reopened.store, "c");
    expect(reopened.store.principal("c")?.createdAt).toBe(new Date(T0).toISOString());
  });

  it("creates its directory with mode 0700", async () => {
    const h = await openHarness();
    expect(fs.statSync(h.dir).mode & 0o777).toBe(0o700);
  });
});
