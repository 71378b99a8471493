/**
 * One audit signing key for the whole cluster (issue 29 in cluster mode; decisions.md I32 and the
 * cluster key entry): the first node records its key history in NATS (KV cluster-meta/audit-keys),
 * every node publishes that history, a node with another key is refused at start, and a node whose
 * history extends the record rotates the cluster's key. Three real nats-server nodes, real service
 * processes, the real `signing-key rotate` CLI.
 */
import { spawnSync } from "node:child_process";
import { createPrivateKey } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { Kvm } from "@nats-io/kv";
import { connect } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NatsCluster } from "../../scripts/nats-cluster.js";
import { ServiceCluster } from "./support/service-cluster.js";
import { CLI_JS, MAIN_JS, spawnCaptured, tempDataDir } from "../process/support.js";
import { clusterSigningKeyFile } from "../../scripts/cluster-signing-key.js";
import { killOnExit } from "../../scripts/kill-on-exit.js";
import { auditSignerFromPrivateKey } from "../../engine/audit/signing/audit-signer.js";

let nats: NatsCluster;
let nodes: ServiceCluster;

beforeAll(async () => {
  nats = await NatsCluster.start();
  nodes = await ServiceCluster.start(nats.urls, 2, { env: { CLUSTER_PARTITIONS: "2" } });
}, 120_000);

afterAll(async () => {
  await nodes?.stop();
  await nats?.stop();
});

function keyIdOfFile(file: string): string {
  return auditSignerFromPrivateKey(createPrivateKey(readFileSync(file))).keyId;
}

/** A fresh Ed25519 key file (0600) in a directory of its own, outside every DATA_DIR. */
function freshKeyFile(label: string): string {
  return clusterSigningKeyFile(mkdtempSync(path.join(tmpdir(), `${label}-`)));
}

interface PublishedKeys {
  keys: Array<{ keyId: string; publicKey: string; activatedAtMs: number; endorsement: string | null }>;
}

async function publishedKeys(index: number): Promise<{ text: string; body: PublishedKeys }> {
  const response = await fetch(`${nodes.url(index)}/v1/audit/keys`);
  expect(response.status).toBe(200);
  const text = await response.text();
  return { text, body: JSON.parse(text) as PublishedKeys };
}

/** The cluster's record, read from NATS directly. */
async function recordedHistory(): Promise<PublishedKeys> {
  const connection = await connect({ servers: [...nats.urls] });
  try {
    const kv = await new Kvm(connection).open("cluster-meta");
    const entry = await kv.get("audit-keys");
    if (entry === null) throw new Error("no cluster-meta/audit-keys record");
    return JSON.parse(new TextDecoder().decode(entry.value)) as PublishedKeys;
  } finally {
    await connection.close();
  }
}

/** Starts one more node (node id `nodeId`, a fresh DATA_DIR) with the cluster's environment changed by `env` (undefined deletes); resolves when it exits. */
async function startRefusedNode(nodeId: string, env: Record<string, string | undefined>): Promise<{ code: number | null; output: string }> {
  const merged: NodeJS.ProcessEnv = { ...nodes.nodeEnv(0), DATA_DIR: tempDataDir(`cluster-key-${nodeId}`), PORT: "0", CLUSTER_NODE_ID: nodeId };
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) delete merged[name];
    else merged[name] = value;
  }
  const spawned = spawnCaptured(process.execPath, [MAIN_JS], { env: merged });
  // A node that is wrongly accepted would run on: it must not outlive the test.
  killOnExit(spawned.child);
  const exit = await spawned.exited;
  return { code: exit.code, output: spawned.output() };
}

/** The lines of `output` that report a configuration error. */
function refusalLines(output: string): string[] {
  return output.split("\n").filter((line) => line.includes("configuration error"));
}

describe("one audit signing key per cluster", () => {
  it("records the first node's key history in NATS and publishes it, identical, on every node", async () => {
    const clusterKeyId = keyIdOfFile(nodes.signingKeyFile);
    const [a, b] = await Promise.all([publishedKeys(0), publishedKeys(1)]);
    expect(a.text).toBe(b.text);
    expect(a.body.keys.map((key) => key.keyId)).toEqual([clusterKeyId]);
    expect((await recordedHistory()).keys).toEqual(a.body.keys);
  });

  it("refuses to start a node with another key: exit 2 and one line naming the setting and both key ids", async () => {
    const clusterKeyId = keyIdOfFile(nodes.signingKeyFile);
    const otherKey = freshKeyFile("other-key");
    const otherKeyId = keyIdOfFile(otherKey);
    const refused = await startRefusedNode("intruder", { AUDIT_SIGNING_KEY_FILE: otherKey });
    expect(refused.code, refused.output).toBe(2);
    const lines = refusalLines(refused.output);
    expect(lines, refused.output).toHaveLength(1);
    const line = lines[0] as string;
    expect(line).toContain("AUDIT_SIGNING_KEY_FILE");
    expect(line).toContain(otherKeyId);
    expect(line).toContain(clusterKeyId);
    expect(line).toContain("every node of a cluster must sign audit heads with the same key");
    expect(line).toContain("give this node the cluster's key file");
    // Nothing changed: the record is still the cluster's key alone.
    expect((await recordedHistory()).keys.map((key) => key.keyId)).toEqual([clusterKeyId]);
  });

  it("refuses a node on its own quick-start key, saying quick-start keys differ per node", async () => {
    const clusterKeyId = keyIdOfFile(nodes.signingKeyFile);
    const refused = await startRefusedNode("quick-start", { AUDIT_SIGNING_KEY_FILE: undefined });
    expect(refused.code, refused.output).toBe(2);
    const lines = refusalLines(refused.output);
    expect(lines, refused.output).toHaveLength(1);
    const line = lines[0] as string;
    expect(line).toContain("AUDIT_SIGNING_KEY_FILE: is not set");
    expect(line).toContain("quick-start key");
    expect(line).toContain("differ between nodes");
    expect(line).toContain(clusterKeyId);
  });

  it("takes a rotation from a node whose history extends the record, then refuses a node still on the old key alone", async () => {
    const oldKeyId = keyIdOfFile(nodes.signingKeyFile);
    const dir = mkdtempSync(path.join(tmpdir(), "cluster-rotation-"));
    const newKey = path.join(dir, "next-key.pem");
    const historyFile = path.join(dir, "history.json");
    const rotated = spawnSync(process.execPath, [CLI_JS, "signing-key", "rotate", "--key", nodes.signingKeyFile, "--new", newKey, "--history", historyFile], { encoding: "utf8" });
    expect(rotated.status, rotated.stderr).toBe(0);
    const newKeyId = keyIdOfFile(newKey);

    // Node b restarts with the next key and the extended history: accepted, and the record follows.
    await nodes.restartWith(1, { AUDIT_SIGNING_KEY_FILE: newKey, AUDIT_KEY_HISTORY_FILE: historyFile });
    expect(nodes.output(1)).toContain("audit signing key rotated for the whole cluster");
    const recorded = await recordedHistory();
    expect(recorded.keys.map((key) => key.keyId)).toEqual([oldKeyId, newKeyId]);
    expect((await publishedKeys(1)).body.keys).toEqual(recorded.keys);

    // A node on the old key alone is now refused: the cluster has rotated past it.
    const refused = await startRefusedNode("stale", {});
    expect(refused.code, refused.output).toBe(2);
    const lines = refusalLines(refused.output);
    expect(lines, refused.output).toHaveLength(1);
    expect(lines[0]).toContain(oldKeyId);
    expect(lines[0]).toContain(newKeyId);
    expect(lines[0]).toContain("rotated past");

    // Node a restarted on the new key alone (no history file) signs what the cluster signs and publishes the cluster's history.
    await nodes.restartWith(0, { AUDIT_SIGNING_KEY_FILE: newKey });
    const [a, b] = await Promise.all([publishedKeys(0), publishedKeys(1)]);
    expect(a.text).toBe(b.text);
    expect(a.body.keys).toEqual(recorded.keys);
  }, 120_000);
});
