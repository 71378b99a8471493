/**
 * Real service nodes in cluster mode for the cluster tests: each a `node dist/gateway/main.js`
 * process with its own data directory and port, all on the same real NATS cluster
 * (scripts/nats-cluster.ts), the same operator secret, the same audit signing key (AUDIT_SIGNING_KEY_FILE, in a
 * temporary directory of its own, outside every DATA_DIR), and CLUSTER_NODE_ID a, b, c… Started, killed with
 * SIGKILL, paused with SIGSTOP and resumed, restarted: what a machine does to a node.
 * `stop()` ends every process (call it in afterAll); stragglers are SIGKILLed at exit (scripts/kill-on-exit.ts).
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { OPERATOR, listeningUrl, spawnCaptured, tempDataDir, MAIN_JS, type Spawned } from "../../process/support.js";
import { freePort } from "../../../scripts/free-port.js";
import { clusterSigningKeyFile } from "../../../scripts/cluster-signing-key.js";
import { killOnExit } from "../../../scripts/kill-on-exit.js";

/**
 * Every node's CLUSTER_LEASE_MS unless a test sets its own. With the service's default (1.5 s) each
 * lease round's requests to NATS must answer within 0.5 s; on this 2-core machine at a load average
 * near 30 they did not, leases expired before they could be renewed, and partitions went unowned for
 * a minute. The tests wait for takeovers on conditions, so a longer lease only makes a takeover later.
 */
export const TEST_LEASE_MS = "10000";

export interface ServiceNodeOptions {
  /** Extra environment (e.g. CLUSTER_PARTITIONS, CLUSTER_LEASE_MS). */
  readonly env?: Record<string, string>;
}

interface RunningServiceNode {
  readonly nodeId: string;
  readonly dataDir: string;
  /** Chosen by freePort; a fresh one if another program took it (launch). */
  port: number;
  spawned: Spawned | undefined;
  url: string;
  /** Output of earlier runs of this node (restarts), for failure messages. */
  history: string;
  /** Environment for this node alone, over the cluster's (restartWith). */
  env: Record<string, string>;
}

export class ServiceCluster {
  private constructor(
    private readonly natsUrls: readonly string[],
    private readonly nodes: RunningServiceNode[],
    private readonly options: ServiceNodeOptions,
    /** The audit signing key every node is given (a cluster has one key). */
    readonly signingKeyFile: string,
  ) {}

  /** Starts `count` nodes (a, b, c, …) on the NATS cluster at `natsUrls` and waits until each listens. */
  static async start(natsUrls: readonly string[], count: number, options: ServiceNodeOptions = {}): Promise<ServiceCluster> {
    const nodes: RunningServiceNode[] = [];
    for (let i = 0; i < count; i += 1) {
      const nodeId = String.fromCharCode(97 + i);
      nodes.push({ nodeId, dataDir: tempDataDir(`cluster-node-${nodeId}`), port: await freePort(), spawned: undefined, url: "", history: "", env: {} });
    }
    const signingKeyFile = clusterSigningKeyFile(mkdtempSync(path.join(tmpdir(), "cluster-signing-key-")));
    const cluster = new ServiceCluster(natsUrls, nodes, options, signingKeyFile);
    await Promise.all(nodes.map((_, index) => cluster.launch(index)));
    return cluster;
  }

  get size(): number {
    return this.nodes.length;
  }

  running(index: number): boolean {
    return this.node(index).spawned !== undefined;
  }

  url(index: number): string {
    return this.node(index).url;
  }

  nodeId(index: number): string {
    return this.node(index).nodeId;
  }

  output(index: number): string {
    const node = this.node(index);
    return node.history + (node.spawned?.output() ?? "");
  }

  pid(index: number): number {
    const pid = this.node(index).spawned?.child.pid;
    if (pid === undefined) throw new Error(`node ${index} is not running`);
    return pid;
  }

  /** Whether node `index` serves `partition` now, by its log: its last word on it was "partition acquired". */
  serves(index: number, partition: number): boolean {
    const node = this.node(index);
    if (node.spawned === undefined) return false;
    let serving = false;
    for (const line of node.spawned.output().split("\n")) {
      if (!line.startsWith("{")) continue;
      let entry: { msg?: string; partition?: number };
      try {
        entry = JSON.parse(line) as { msg?: string; partition?: number };
      } catch {
        continue; // a partial last line
      }
      if (entry.partition !== partition) continue;
      if (entry.msg === "partition acquired") serving = true;
      else if (entry.msg === "partition released" || entry.msg === "partition stopped") serving = false;
    }
    return serving;
  }

  /** The running node that serves `partition` by its log, if one does. */
  ownerOf(partition: number): number | undefined {
    for (let index = 0; index < this.nodes.length; index += 1) if (this.serves(index, partition)) return index;
    return undefined;
  }

  private node(index: number): RunningServiceNode {
    const node = this.nodes[index];
    if (node === undefined) throw new Error(`no service node ${index}`);
    return node;
  }

  /** The environment node `index` starts with: the cluster's, then its own (restartWith). */
  nodeEnv(index: number): NodeJS.ProcessEnv {
    return this.env(this.node(index));
  }

  private env(node: RunningServiceNode): NodeJS.ProcessEnv {
    return {
      ...process.env,
      DATA_DIR: node.dataDir,
      HOST: "127.0.0.1",
      PORT: String(node.port),
      LOG_LEVEL: "info",
      SERVICE_HMAC_SECRETS: `${OPERATOR.actorId}=${OPERATOR.secret}`,
      SERVICE_OPERATOR_ACTORS: OPERATOR.actorId,
      CLUSTER_NATS_URLS: this.natsUrls.join(","),
      CLUSTER_NODE_ID: node.nodeId,
      AUDIT_SIGNING_KEY_FILE: this.signingKeyFile,
      CLUSTER_LEASE_MS: TEST_LEASE_MS,
      ...this.options.env,
      ...node.env,
    };
  }

  /**
   * Starts node `index` on its port and waits until it listens. freePort chooses ports no outgoing
   * connection or listen(0) can take, but another program binding ports by number could still take
   * this one first (or take a restarted node's port while it was down): then the node starts again
   * on a fresh port, a few times, as NatsCluster.start does; its url changes with it.
   */
  private async launch(index: number): Promise<void> {
    const node = this.node(index);
    for (let attempt = 1; ; attempt += 1) {
      const spawned = spawnCaptured(process.execPath, [MAIN_JS], { env: this.env(node) });
      killOnExit(spawned.child);
      node.spawned = spawned;
      try {
        node.url = await listeningUrl(spawned);
        return;
      } catch (error) {
        if (!/cannot listen on .*address in use/.test(spawned.output()) || attempt >= 3) throw error;
        await spawned.exited;
        node.history += `${spawned.output()}\n[service-cluster] port ${node.port} was taken: starting node ${node.nodeId} on another\n`;
        node.spawned = undefined;
        node.port = await freePort();
      }
    }
  }

  /** Restarts node `index` with `env` over the cluster's environment, kept for its later restarts. */
  async restartWith(index: number, env: Record<string, string>): Promise<void> {
    this.node(index).env = env;
    await this.restart(index);
  }

  /** SIGKILL: the node dies mid-whatever, as when its machine does. */
  async kill(index: number): Promise<void> {
    const node = this.node(index);
    const spawned = node.spawned;
    if (spawned === undefined) return;
    spawned.child.kill("SIGKILL");
    await spawned.exited;
    node.history += spawned.output();
    node.spawned = undefined;
  }

  /** SIGSTOP: the node freezes (a long GC pause, a VM stall) with its sockets open. */
  pause(index: number): void {
    this.node(index).spawned?.child.kill("SIGSTOP");
  }

  resume(index: number): void {
    this.node(index).spawned?.child.kill("SIGCONT");
  }

  /** Starts a killed or stopped node again, on its data directory and port. */
  async restart(index: number): Promise<void> {
    if (this.node(index).spawned !== undefined) await this.kill(index);
    await this.launch(index);
  }

  /** Graceful stop (SIGTERM) of one node; resolves with its exit code. */
  async stopNode(index: number): Promise<number | null> {
    const node = this.node(index);
    const spawned = node.spawned;
    if (spawned === undefined) return null;
    spawned.child.kill("SIGCONT");
    spawned.child.kill("SIGTERM");
    const { code } = await spawned.exited;
    node.history += spawned.output();
    node.spawned = undefined;
    return code;
  }

  /** Ends every node (graceful first, SIGKILL after a bound). */
  async stop(): Promise<void> {
    await Promise.all(
      this.nodes.map(async (node, index) => {
        const spawned = node.spawned;
        if (spawned === undefined) return;
        const timer = setTimeout(() => spawned.child.kill("SIGKILL"), 10_000);
        await this.stopNode(index);
        clearTimeout(timer);
      }),
    );
  }
}

/**
 * Whole logs of every node (restarts included) written under a fresh temporary directory, whose
 * path is returned: for a failed fault test, whose message can only quote a few lines.
 */
export function saveNodeLogs(cluster: ServiceCluster, label: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), `${label}-logs-`));
  for (let index = 0; index < cluster.size; index += 1) writeFileSync(path.join(dir, `node-${cluster.nodeId(index)}.log`), cluster.output(index));
  return dir;
}
