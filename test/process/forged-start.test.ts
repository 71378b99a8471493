/**
 * A restart must not launder a forgery (issue 35), with the built service and CLI as processes on a
 * real data directory. Someone who holds the stopped directory but not the signing key rewrites the
 * shard's log (winner and loser of a capacity-1 market swapped, every chain value and CRC recomputed
 * by the storage code): with the signed heads stripped, or kept with roots recomputed over the
 * rewritten entries and the old signatures. The service refuses both in one line naming the log and
 * (for the stripped heads) its first uncovered entry; it starts when the operator accepts that tail by
 * name (AUDIT_ACCEPT_UNSIGNED_TAIL), logging it and recording it in the log, and `verify` reports the
 * acceptance. A service killed with SIGKILL restarts without any of it: a crash's tail is not a forgery.
 */
import { writeFileSync } from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { MarketClient } from "@market-service/client";
import { decodeLogEntry } from "../../engine/log/logged-head.js";
import { forged, readShard, writeShard } from "../audit/support/forger.js";
import { withRecomputedRoots } from "../audit/support/heads.js";
import { CLI_JS, MAIN_JS, OPERATOR, acknowledgedWrites, serverEnv, spawnCaptured, startServer, tempDataDir } from "./support.js";

const ENV = { SHARDS: "1", AUDIT_HEAD_EVERY_COMMANDS: "3" };

async function claim(url: string, marketId: string, who: string): Promise<number> {
  const client = new MarketClient({ baseUrl: url });
  const identity = await client.provisionNewIdentity({ principalId: who }, { credentials: { kind: "hmac", ...OPERATOR } });
  const { accessToken } = await client.signIn(identity);
  const reply = await client.request("POST", `/v1/markets/${marketId}/direct-claims`, { body: { commandId: `${who}-claim`, principalId: who }, credentials: { kind: "bearer", token: accessToken } });
  return reply.status;
}

/** The service started on `dataDir`, expected to refuse: its exit code and output. */
async function refusedStart(dataDir: string, env: Record<string, string> = {}): Promise<{ code: number | null; output: string }> {
  const spawned = spawnCaptured(process.execPath, [MAIN_JS], { env: serverEnv(dataDir, { ...ENV, ...env }) });
  const exited = await spawned.exited;
  return { code: exited.code, output: spawned.output() };
}

async function cli(args: string[]): Promise<{ code: number | null; output: string }> {
  const spawned = spawnCaptured(process.execPath, [CLI_JS, ...args], { env: process.env });
  const exited = await spawned.exited;
  return { code: exited.code, output: spawned.output() };
}

describe("a restart does not launder a forged log", { timeout: 240_000 }, () => {
  it("refuses stripped heads and recomputed roots in one line, starts on an accepted tail (logged and recorded), and restarts after SIGKILL", async () => {
    const dataDir = tempDataDir("forged-start");
    const keysFile = path.join(path.dirname(dataDir), "keys.json");
    let server = await startServer(dataDir, ENV);
    const { marketId } = await acknowledgedWrites(server.url, "alice");
    expect(await claim(server.url, marketId, "bob")).toBe(200);
    expect(await claim(server.url, marketId, "carol")).toBe(409);
    const keys = await new MarketClient({ baseUrl: server.url }).auditKeys();
    writeFileSync(keysFile, JSON.stringify(keys));
    // A crash: killed, and started again on what it left (entries after the last head, as a crash leaves them).
    server.child.kill("SIGKILL");
    await server.exited;
    server = await startServer(dataDir, ENV);
    server.child.kill("SIGTERM");
    expect((await server.exited).code).toBe(0);
    const clean = await cli(["verify", "--data", dataDir, "--public-key", keysFile]);
    expect(clean.code, clean.output).toBe(0);
    expect(clean.output).toMatch(/\d+ signed head\(s\) verified: roots and signatures checked/);
    const unkeyed = await cli(["verify", "--data", dataDir]);
    expect(unkeyed.code, unkeyed.output).toBe(0);
    expect(unkeyed.output).toMatch(/\d+ head\(s\) matched the entries before them: roots checked; signatures not checked: pass --public-key/);

    const shardDir = path.join(dataDir, "shards", "00");
    const original = readShard(shardDir);

    // Heads kept, their roots recomputed over the rewritten entries, the old signatures kept.
    writeShard(dataDir, withRecomputedRoots(forged(original, { bob: "carol", carol: "bob" }, "keep heads")));
    const resigned = await refusedStart(dataDir);
    expect(resigned.code).toBe(1);
    const resignedLines = resigned.output.split("\n").filter((line) => line.startsWith("market-service:"));
    expect(resignedLines).toHaveLength(1);
    expect(resignedLines[0]).toMatch(/^market-service: shard 0 could not start: Error: log shard-0: the head recorded at entry \d+ has a signature that does not verify with key [0-9a-f]{32}$/);

    // Heads stripped.
    writeShard(dataDir, forged(original, { bob: "carol", carol: "bob" }, "drop heads"));
    const stripped = await refusedStart(dataDir);
    expect(stripped.code).toBe(1);
    const lines = stripped.output.split("\n").filter((line) => line.startsWith("market-service:"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^market-service: shard 0 could not start: Error: log shard-0: first uncovered entry 1: \d+ entries \(1…\d+\) follow no verified head, more than AUDIT_HEAD_EVERY_COMMANDS=3 entries.*; to start on it anyway set AUDIT_ACCEPT_UNSIGNED_TAIL=shard-0:1 /);
    const keyed = await cli(["verify", "--data", dataDir, "--public-key", keysFile, "--threads", "1"]);
    expect(keyed.code).toBe(1);
    expect(keyed.output).toMatch(/verify: FAILED: log shard-0: \d+ entries and no signed head/);

    // The operator accepts it by name: the service starts, says so, and records it in the log.
    const accepted = await startServer(dataDir, { ...ENV, AUDIT_ACCEPT_UNSIGNED_TAIL: "shard-0:1" });
    const log = accepted.output();
    expect(log).toMatch(/"msg":"AUDIT_ACCEPT_UNSIGNED_TAIL is set/);
    const acceptance = log.split("\n").find((line) => line.includes('"msg":"unsigned tail accepted (AUDIT_ACCEPT_UNSIGNED_TAIL): recorded in the log by a signed head"'));
    expect(acceptance, log).toMatch(/"logId":"shard-0","from":1,"to":\d+/);
    accepted.child.kill("SIGTERM");
    expect((await accepted.exited).code).toBe(0);
    const recorded = readShard(shardDir).map((payload) => decodeLogEntry(payload)).filter((entry) => entry.kind === "head" && entry.acceptedFrom !== undefined);
    expect(recorded).toHaveLength(1);
    const audited = await cli(["verify", "--data", dataDir, "--public-key", keysFile]);
    expect(audited.code, audited.output).toBe(0);
    expect(audited.output).toMatch(/verify: NOTE: log shard-0: entries 1…\d+ were accepted at start without a verified head \(AUDIT_ACCEPT_UNSIGNED_TAIL\), recorded by the head signed at /);
    // Later starts need no acceptance: the tail is covered now (the setting left in place accepts nothing else).
    const later = await startServer(dataDir, ENV);
    later.child.kill("SIGTERM");
    expect((await later.exited).code).toBe(0);
  });
});
