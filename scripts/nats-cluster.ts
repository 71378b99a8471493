/**
 * A real nats-server cluster on loopback for the cluster tests and the benches that need JetStream
 * (bench/journal-jetstream.bench.ts, identity-propagation.bench.ts, lease-leader-loss.bench.ts),
 * here in scripts/ because benches import nothing from test/: N nodes (3 by default), each with its
 * own free ports (client, route, monitoring), its own temporary store directory and
 * `jetstream { sync_interval: always }`, the setting the cluster mode's durability promise relies on
 * (every write fsynced before JetStream acknowledges it).
 *
 * The binary is Debian trixie's nats-server 2.10, fetched by scripts/fetch-nats-server.sh into
 * .tools/nats-server (NATS_SERVER_BIN overrides). Without it `NatsCluster.start` throws, naming the
 * script: a cluster test that cannot run fails, it is never skipped.
 *
 * No orphans: `stop()` kills every node and removes the directories (call it in afterAll), and a
 * process-exit hook SIGKILLs whatever is still running if a test file ends without it.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import * as http from "node:http";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "./free-port.js";
import { killOnExit } from "./kill-on-exit.js";
import { GraceRestarts, MetaGroupWatch } from "./nats-meta-group.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const NATS_SERVER_BIN = process.env["NATS_SERVER_BIN"] ?? path.join(ROOT, ".tools/nats-server/nats-server");

/** The tail of a node's output kept for failure messages. */
const OUTPUT_TAIL_CHARS = 16_384;

export interface NatsClusterOptions {
  /** Nodes in the cluster (3 by default: R3 streams need three). */
  readonly nodes?: number;
  /** The servers' max_payload, the largest message (one journal batch) they accept. */
  readonly maxPayloadBytes?: number;
  /** How long `start` and `restart` wait for JetStream to be ready. */
  readonly readyTimeoutMs?: number;
}

export interface NatsNode {
  readonly name: string;
  readonly clientPort: number;
  readonly clusterPort: number;
  readonly monitorPort: number;
  readonly storeDir: string;
  readonly configFile: string;
  /** nats://127.0.0.1:port */
  readonly url: string;
}

interface RunningNode {
  readonly node: NatsNode;
  process: ChildProcess | undefined;
  /** Whether the node should be running (started and not killed since). */
  wanted: boolean;
  exited: Promise<void>;
  output: string;
}

/** `count` ports; freePort never returns a port twice in one process, so they are distinct. */
async function freePorts(count: number): Promise<number[]> {
  const ports: number[] = [];
  while (ports.length < count) ports.push(await freePort());
  return ports;
}

function configuration(node: NatsNode, clusterName: string, routes: readonly number[], maxPayloadBytes: number): string {
  return [
    `server_name: ${node.name}`,
    `listen: 127.0.0.1:${node.clientPort}`,
    `http: 127.0.0.1:${node.monitorPort}`,
    `max_payload: ${maxPayloadBytes}`,
    `jetstream {`,
    `  store_dir: ${JSON.stringify(node.storeDir)}`,
    `  sync_interval: always`,
    `  max_memory_store: 64MB`,
    `  max_file_store: 2GB`,
    `}`,
    `cluster {`,
    `  name: ${clusterName}`,
    `  listen: 127.0.0.1:${node.clusterPort}`,
    `  routes: [${routes.map((port) => `nats-route://127.0.0.1:${port}`).join(", ")}]`,
    `}`,
    ``,
  ].join("\n");
}

/** GET the monitoring endpoint; resolves with the status code and body, or undefined if not reachable. */
function monitor(port: number, pathAndQuery: string): Promise<{ status: number; body: string } | undefined> {
  return new Promise((resolve) => {
    const request = http.get({ host: "127.0.0.1", port, path: pathAndQuery, timeout: 1000 }, (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (body += chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
      response.on("error", () => resolve(undefined));
    });
    request.on("timeout", () => request.destroy());
    request.on("error", () => resolve(undefined));
  });
}

/** How long a running node may report itself not current (with the meta leader, or a stream's group) before it is restarted, and how often. */
const NOT_CURRENT_RESTART_MS = 20_000;
const NOT_CURRENT_RESTARTS = 2;

/**
 * A node whose /healthz keeps saying it is not current is restarted on its store, as MetaGroupWatch
 * does for a node left out of the meta group. Both were seen in loaded test runs for as long as the
 * ready timeout: "not current with the meta leader" after two of three nodes came back, and "stream
 * … is not current: group node unhealthy" (a stream's replica whose group stopped on the node that
 * was killed and restarted: keys-0 in a clean-clone CI run, 2026-11-30).
 */
class NotCurrentWatch {
  private readonly grace: GraceRestarts;

  constructor(restart: (name: string) => Promise<void>) {
    this.grace = new GraceRestarts(NOT_CURRENT_RESTART_MS, NOT_CURRENT_RESTARTS, restart);
  }

  async check(name: string, health: { status: number; body: string } | undefined): Promise<void> {
    if (health?.status === 503 && (health.body.includes("not current with the meta leader") || health.body.includes("is not current: group node unhealthy"))) await this.grace.still(name);
    else this.grace.clear(name);
  }
}

/** The cluster did not become ready in time. */
class NotReadyError extends Error {}

/** A node exited while it should have been running (a port taken, a bad store). */
class NodeExitedError extends Error {
  constructor(name: string, output: string) {
    super(`NATS node ${name} exited while starting:\n${output}`);
  }
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export class NatsCluster {
  private readonly running: RunningNode[];
  private stopped = false;

  private constructor(
    readonly nodes: readonly NatsNode[],
    private readonly root: string,
    private readonly readyTimeoutMs: number,
  ) {
    this.running = nodes.map((node) => ({ node, process: undefined, wanted: false, exited: Promise.resolve(), output: "" }));
  }

  /**
   * Starts every node and resolves once each reports JetStream healthy (a meta leader is known).
   * A free port can be taken by another process before a node binds it: a start whose node exits
   * is made again on fresh ports, a few times.
   */
  static async start(options: NatsClusterOptions = {}): Promise<NatsCluster> {
    if (!existsSync(NATS_SERVER_BIN)) {
      throw new Error(`nats-server not found at ${NATS_SERVER_BIN}: run scripts/fetch-nats-server.sh (it fetches Debian trixie's nats-server 2.10 into .tools/nats-server), or set NATS_SERVER_BIN`);
    }
    for (let attempt = 1; ; attempt++) {
      try {
        return await NatsCluster.startOnce(options);
      } catch (error) {
        // A node that exited (a port taken meanwhile), or a cluster that elected no meta leader in
        // time (seen once in a CI run: all three nodes without one for 20 s): fresh ports, fresh stores.
        if (!(error instanceof NodeExitedError || error instanceof NotReadyError) || attempt >= 3) throw error;
      }
    }
  }

  private static async startOnce(options: NatsClusterOptions): Promise<NatsCluster> {
    const count = options.nodes ?? 3;
    const root = mkdtempSync(path.join(tmpdir(), "nats-cluster-"));
    const ports = await freePorts(count * 3);
    const nodes: NatsNode[] = Array.from({ length: count }, (_, i) => {
      const name = `n${i + 1}`;
      const clientPort = ports[i * 3] as number;
      return {
        name,
        clientPort,
        clusterPort: ports[i * 3 + 1] as number,
        monitorPort: ports[i * 3 + 2] as number,
        storeDir: path.join(root, name, "jetstream"),
        configFile: path.join(root, name, "nats.conf"),
        url: `nats://127.0.0.1:${clientPort}`,
      };
    });
    const clusterName = `test-${path.basename(root).replace(/[^A-Za-z0-9]/g, "")}`;
    for (const node of nodes) {
      mkdirSync(node.storeDir, { recursive: true });
      const routes = nodes.map((other) => other.clusterPort);
      writeFileSync(node.configFile, configuration(node, clusterName, routes, options.maxPayloadBytes ?? 8 * 1024 * 1024));
    }
    const cluster = new NatsCluster(nodes, root, options.readyTimeoutMs ?? 60_000);
    try {
      for (let i = 0; i < count; i++) cluster.spawnNode(i);
      await cluster.waitUntilReady();
    } catch (error) {
      await cluster.stop();
      throw error;
    }
    return cluster;
  }

  /** Every node's client URL (a client given them all reconnects to another when one dies). */
  get urls(): string[] {
    return this.nodes.map((node) => node.url);
  }

  indexOf(name: string): number {
    const index = this.nodes.findIndex((node) => node.name === name);
    if (index < 0) throw new Error(`no NATS node named ${name} (nodes: ${this.nodes.map((node) => node.name).join(", ")})`);
    return index;
  }

  /** The process ids of the nodes running now (benches read their CPU from /proc). */
  pids(): number[] {
    return this.running.flatMap((entry) => (entry.process?.pid === undefined ? [] : [entry.process.pid]));
  }

  /** Whether node `index` has a live process (a paused one counts). */
  isRunning(index: number): boolean {
    return this.entry(index).process !== undefined;
  }

  /** kill -9 of node `index`; resolves once the process has exited. */
  async kill(index: number): Promise<void> {
    const entry = this.entry(index);
    entry.wanted = false;
    const child = entry.process;
    if (child === undefined) return;
    child.kill("SIGKILL");
    await entry.exited;
  }

  /** SIGSTOP: the node keeps its sockets open but answers nothing (a paused or partitioned node). */
  pause(index: number): void {
    this.liveProcess(index).kill("SIGSTOP");
  }

  /** SIGCONT after `pause`. */
  resume(index: number): void {
    this.liveProcess(index).kill("SIGCONT");
  }

  /**
   * Starts the nodes `indexes` again on their configuration and stores (after `kill`); resolves once
   * all nodes are healthy. Several nodes are started together and waited for by one readiness loop:
   * a restart each, awaited together, ran one loop per node, and each loop's repairs (a node left
   * out of the meta group or not current, restarted on its store) could undo the other's.
   */
  async restart(...indexes: number[]): Promise<void> {
    for (const index of indexes) if (this.entry(index).process !== undefined) throw new Error(`NATS node ${this.nodes[index]?.name} is still running`);
    for (const index of indexes) this.spawnNode(index);
    await this.waitUntilReady();
  }

  /** The last output of node `index` (for failure messages). */
  output(index: number): string {
    return this.entry(index).output;
  }

  /**
   * Resolves once every running node's /healthz says JetStream is healthy (the meta group has a
   * leader and the node is current with it) and the meta leader lists every running node as a
   * member. A node left out of the meta group (scripts/nats-meta-group.ts says why that
   * happens), or one that stays not current with the meta leader or a stream's group (NotCurrentWatch), is restarted
   * on its store, at most a few times. Polls the real endpoints, bounded by the ready timeout.
   */
  async waitUntilReady(): Promise<void> {
    const deadline = Date.now() + this.readyTimeoutMs;
    const restartOnStore = async (name: string, why: string): Promise<void> => {
      const index = this.indexOf(name);
      this.entry(index).output += `\n[nats-cluster] ${name} ${why}: restarting it\n`;
      await this.kill(index);
      this.spawnNode(index);
    };
    const watch = new MetaGroupWatch((name) => restartOnStore(name, "was left out of the meta group"));
    const notCurrent = new NotCurrentWatch((name) => restartOnStore(name, `reported itself not current for ${NOT_CURRENT_RESTART_MS} ms`));
    let last = "";
    for (;;) {
      const gone = this.running.find((entry) => entry.wanted && entry.process === undefined);
      if (gone !== undefined) throw new NodeExitedError(gone.node.name, gone.output.slice(-2000));
      const states = await Promise.all(
        this.running.map(async (entry) => {
          if (entry.process === undefined) return { ok: true, detail: `${entry.node.name}: not running` };
          const reply = await monitor(entry.node.monitorPort, "/healthz");
          await notCurrent.check(entry.node.name, reply);
          return { ok: reply?.status === 200, detail: `${entry.node.name}: ${reply === undefined ? "unreachable" : `${reply.status} ${reply.body.trim()}`}` };
        }),
      );
      last = states.map((state) => state.detail).join("; ");
      if (states.every((state) => state.ok)) {
        const missing = await watch.check(this.running.filter((entry) => entry.process !== undefined).map((entry) => entry.node));
        if (missing === undefined) return;
        last = missing;
      }
      if (Date.now() > deadline) {
        // The nodes' own lines, without the health check's: this loop polls it, and its warnings would fill the tail.
        const own = (output: string): string => output.split("\n").filter((line) => !line.includes("Healthcheck failed")).join("\n").slice(-2000);
        const tails = this.running.map((entry) => `--- ${entry.node.name}\n${own(entry.output)}`).join("\n");
        throw new NotReadyError(`the NATS cluster did not become ready within ${this.readyTimeoutMs} ms (${last})\n${tails}`);
      }
      await pause(50);
    }
  }

  /** Kills every node (resuming paused ones first) and removes the store directories. Idempotent. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await Promise.all(
      this.running.map(async (entry) => {
        entry.wanted = false;
        const child = entry.process;
        if (child === undefined) return;
        child.kill("SIGKILL");
        await entry.exited;
      }),
    );
    rmSync(this.root, { recursive: true, force: true });
  }

  private entry(index: number): RunningNode {
    const entry = this.running[index];
    if (entry === undefined) throw new Error(`no NATS node ${index} (the cluster has ${this.running.length})`);
    return entry;
  }

  private liveProcess(index: number): ChildProcess {
    const child = this.entry(index).process;
    if (child === undefined) throw new Error(`NATS node ${this.nodes[index]?.name} is not running`);
    return child;
  }

  private spawnNode(index: number): void {
    if (this.stopped) throw new Error("the NATS cluster was stopped");
    const entry = this.entry(index);
    const child = spawn(NATS_SERVER_BIN, ["-c", entry.node.configFile], { stdio: ["ignore", "pipe", "pipe"] });
    killOnExit(child);
    entry.process = child;
    entry.wanted = true;
    const keep = (chunk: Buffer): void => {
      entry.output = (entry.output + chunk.toString("utf8")).slice(-OUTPUT_TAIL_CHARS);
    };
    child.stdout?.on("data", keep);
    child.stderr?.on("data", keep);
    entry.exited = new Promise((resolve) => {
      child.once("exit", () => {
        if (entry.process === child) entry.process = undefined;
        resolve();
      });
      child.once("error", (error) => {
        entry.output += `\nspawn failed: ${error.message}`;
        if (entry.process === child) entry.process = undefined;
        resolve();
      });
    });
  }
}
