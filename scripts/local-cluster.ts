/**
 * A cluster on this machine, for `npm run cluster:demo` (scripts/cluster-demo.ts) and
 * `npm run bench:cluster` (bench/cluster.bench.ts): N nats-server nodes forming one JetStream
 * cluster (R3-capable, `jetstream { sync_interval: always }`, the setting the cluster mode's
 * durability promise relies on: docs/cluster.md) and N service nodes, each the built service
 * (`node dist/gateway/main.js`, as `npm start` runs it) with its own data directory, the same
 * operator secret and CLUSTER_NODE_ID a, b, c…, all on loopback.
 *
 * Everything lives under one directory: `nats/<name>/` (configuration and JetStream store),
 * `nodes/<id>/` (a service node's DATA_DIR), `logs/<name>.log` (every process's output, appended
 * across restarts), and `audit-signing-key.pem`, the one audit signing key every node is given as
 * AUDIT_SIGNING_KEY_FILE (outside every DATA_DIR; a cluster has one key: docs/cluster.md).
 *
 * Children run in process groups of their own, so a terminal's Ctrl-C reaches only the program
 * that started them, which then stops them in order (service nodes first, while NATS still
 * answers their last writes, then NATS). A process-exit hook SIGKILLs any child still running if
 * that program ends without `stop()` (scripts/kill-on-exit.ts). (The test suite's own launchers of
 * service nodes, test/cluster/support/, keep output in memory and parse the service's log for
 * ownership, and start their NATS nodes with scripts/nats-cluster.ts; this one reads ownership from
 * /metrics and writes logs to files, which a long demo or a storm needs.)
 */
import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { MetaGroupWatch } from "./nats-meta-group.js";
import { freePort, portFree } from "./free-port.js";
import { clusterSigningKeyFile } from "./cluster-signing-key.js";
import { killOnExit } from "./kill-on-exit.js";
import { SERVICE_NODE_FLAGS } from "./service-node-flags.js";

export const REPO_ROOT = path.resolve(import.meta.dirname, "..");
export const MAIN_JS = path.join(REPO_ROOT, "dist/gateway/main.js");
export const NATS_SERVER_BIN = process.env["NATS_SERVER_BIN"] ?? path.join(REPO_ROOT, ".tools/nats-server/nats-server");
export const FETCH_NATS_SCRIPT = path.join(REPO_ROOT, "scripts/fetch-nats-server.sh");

/** Fixed loopback ports (`--ports fixed`), or any free ones. */
export type PortChoice = { kind: "free" } | { kind: "fixed"; serviceBase: number; natsClientBase: number; natsClusterBase: number; natsMonitorBase: number };

export const DEMO_PORTS: PortChoice = { kind: "fixed", serviceBase: 8081, natsClientBase: 4222, natsClusterBase: 6222, natsMonitorBase: 8222 };

export interface LocalClusterOptions {
  /** Where every node keeps its files (created if missing; what is there is reused). */
  readonly dir: string;
  readonly serviceNodes?: number;
  readonly natsNodes?: number;
  /** CLUSTER_PARTITIONS (read when the cluster is created; unset: the service's default). */
  readonly partitions?: number;
  readonly ports: PortChoice;
  /** The operator actor `operator`'s HMAC secret, the same on every node. */
  readonly operatorSecret: string;
  /** METRICS_TOKEN of every node (GET /metrics is not public). */
  readonly metricsToken: string;
  /** More environment for the service nodes (LOG_LEVEL, CLUSTER_LEASE_MS, AUTH_TOKEN_TTL…). */
  readonly serviceEnv?: Record<string, string>;
  /** Node flags for the service nodes, e.g. `--cpu-prof --cpu-prof-dir=DIR` (bench/README.md, "Profiling"). */
  readonly serviceNodeArgs?: readonly string[];
  /** The servers' max_payload: the largest message, i.e. the largest journal batch, they accept. */
  readonly maxPayloadBytes?: number;
  /** Bound on each wait for a process to become ready. */
  readonly readyTimeoutMs?: number;
  /** Called when a child exits without having been told to (not during `stop()`). */
  readonly onUnexpectedExit?: (name: string, code: number | null, signal: NodeJS.Signals | null) => void;
}

export interface NatsNode {
  readonly name: string;
  readonly clientPort: number;
  readonly clusterPort: number;
  readonly monitorPort: number;
  readonly url: string;
  readonly configFile: string;
  readonly logFile: string;
}

export interface ServiceNode {
  readonly nodeId: string;
  readonly port: number;
  readonly url: string;
  readonly dataDir: string;
  readonly logFile: string;
}

interface Running {
  child: ChildProcess;
  exited: Promise<void>;
  /** Told to stop or killed on purpose: its exit is expected. */
  stopping: boolean;
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function choosePorts(choice: PortChoice, natsNodes: number, serviceNodes: number): Promise<{ nats: Array<[number, number, number]>; services: number[] }> {
  if (choice.kind === "free") {
    // freePort never returns a port twice in one process: every port here is distinct.
    const nats: Array<[number, number, number]> = [];
    for (let i = 0; i < natsNodes; i += 1) nats.push([await freePort(), await freePort(), await freePort()]);
    const services: number[] = [];
    for (let i = 0; i < serviceNodes; i += 1) services.push(await freePort());
    return { nats, services };
  }
  const nats = Array.from({ length: natsNodes }, (_, i): [number, number, number] => [choice.natsClientBase + i, choice.natsClusterBase + i, choice.natsMonitorBase + i]);
  const services = Array.from({ length: serviceNodes }, (_, i) => choice.serviceBase + i);
  for (const port of [...nats.flat(), ...services]) {
    if (!(await portFree(port))) throw new Error(`port ${port} on 127.0.0.1 is in use: stop what holds it, or pass --free-ports to use any free ports`);
  }
  return { nats, services };
}

function natsConfiguration(node: NatsNode, storeDir: string, routes: readonly number[], maxPayloadBytes: number): string {
  return [
    `server_name: ${node.name}`,
    `listen: 127.0.0.1:${node.clientPort}`,
    `http: 127.0.0.1:${node.monitorPort}`,
    `max_payload: ${maxPayloadBytes}`,
    `jetstream {`,
    `  store_dir: ${JSON.stringify(storeDir)}`,
    // An fsync of every write before JetStream acknowledges it (docs/cluster.md, "Durability").
    `  sync_interval: always`,
    `}`,
    `cluster {`,
    `  name: market-service-local`,
    `  listen: 127.0.0.1:${node.clusterPort}`,
    `  routes: [${routes.map((port) => `nats-route://127.0.0.1:${port}`).join(", ")}]`,
    `}`,
    ``,
  ].join("\n");
}

/** GET `url`; the status, or undefined when nothing answered within a second. */
async function statusOf(url: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string } | undefined> {
  try {
    const response = await fetch(url, { headers, signal: AbortSignal.timeout(1_000) });
    return { status: response.status, text: await response.text() };
  } catch {
    return undefined;
  }
}

/** `market_cluster_partition_served{partition="p"} 1` lines of a node's /metrics: the partitions it serves. */
export function servedPartitions(metricsText: string): number[] {
  const served: number[] = [];
  for (const match of metricsText.matchAll(/^market_cluster_partition_served\{partition="(\d+)"\} 1$/gm)) served.push(Number(match[1]));
  return served.sort((a, b) => a - b);
}

export class LocalCluster {
  private readonly natsRunning: Array<Running | undefined>;
  private readonly serviceRunning: Array<Running | undefined>;
  private stopped = false;

  private constructor(
    readonly nats: readonly NatsNode[],
    readonly services: readonly ServiceNode[],
    private readonly options: LocalClusterOptions,
    /** The cluster's audit signing key, given to every service node. */
    readonly signingKeyFile: string,
  ) {
    this.natsRunning = nats.map(() => undefined);
    this.serviceRunning = services.map(() => undefined);
  }

  /** Starts the NATS nodes, waits until JetStream is healthy on each, then starts the service nodes and waits until each is ready. */
  static async start(options: LocalClusterOptions): Promise<LocalCluster> {
    if (!existsSync(NATS_SERVER_BIN)) throw new Error(`nats-server not found at ${NATS_SERVER_BIN}: run bash scripts/fetch-nats-server.sh (or set NATS_SERVER_BIN)`);
    if (!existsSync(MAIN_JS)) throw new Error(`${MAIN_JS} not found: run npm run build`);
    const natsCount = options.natsNodes ?? 3;
    const serviceCount = options.serviceNodes ?? 3;
    const ports = await choosePorts(options.ports, natsCount, serviceCount);
    mkdirSync(path.join(options.dir, "logs"), { recursive: true });
    const nats: NatsNode[] = ports.nats.map(([clientPort, clusterPort, monitorPort], i) => {
      const name = `nats-${i + 1}`;
      return {
        name,
        clientPort,
        clusterPort,
        monitorPort,
        url: `nats://127.0.0.1:${clientPort}`,
        configFile: path.join(options.dir, "nats", name, "nats.conf"),
        logFile: path.join(options.dir, "logs", `${name}.log`),
      };
    });
    for (const node of nats) {
      const storeDir = path.join(path.dirname(node.configFile), "jetstream");
      mkdirSync(storeDir, { recursive: true });
      writeFileSync(node.configFile, natsConfiguration(node, storeDir, nats.map((other) => other.clusterPort), options.maxPayloadBytes ?? 8 * 1024 * 1024));
    }
    const services: ServiceNode[] = ports.services.map((port, i) => {
      const nodeId = String.fromCharCode(97 + i);
      return { nodeId, port, url: `http://127.0.0.1:${port}`, dataDir: path.join(options.dir, "nodes", nodeId), logFile: path.join(options.dir, "logs", `node-${nodeId}.log`) };
    });
    const cluster = new LocalCluster(nats, services, options, clusterSigningKeyFile(options.dir));
    try {
      nats.forEach((_, i) => cluster.spawnNats(i));
      await cluster.waitForNats();
      await Promise.all(services.map((_, i) => cluster.startService(i)));
    } catch (error) {
      await cluster.stop();
      throw error;
    }
    return cluster;
  }

  get natsUrls(): string[] {
    return this.nats.map((node) => node.url);
  }

  /** Process ids of every child running now (NATS and service nodes). */
  pids(): number[] {
    return [...this.natsRunning, ...this.serviceRunning].flatMap((running) => (running?.child.pid === undefined ? [] : [running.child.pid]));
  }

  servicePid(index: number): number | undefined {
    return this.serviceRunning[index]?.child.pid;
  }

  natsPid(index: number): number | undefined {
    return this.natsRunning[index]?.child.pid;
  }

  serviceRunningNow(index: number): boolean {
    return this.serviceRunning[index] !== undefined;
  }

  private get readyTimeoutMs(): number {
    return this.options.readyTimeoutMs ?? 60_000;
  }

  private spawnLogged(name: string, logFile: string, command: string, args: string[], env: NodeJS.ProcessEnv | undefined, onExitSlot: (running: Running | undefined) => void): Running {
    if (this.stopped) throw new Error("the local cluster was stopped");
    const fd = openSync(logFile, "a");
    let child: ChildProcess;
    try {
      child = spawn(command, args, { cwd: REPO_ROOT, env, detached: true, stdio: ["ignore", fd, fd] });
    } finally {
      closeSync(fd); // the child has its own copy
    }
    killOnExit(child);
    const running: Running = { child, stopping: false, exited: Promise.resolve() };
    running.exited = new Promise((resolve) => {
      const done = (code: number | null, signal: NodeJS.Signals | null): void => {
        onExitSlot(undefined);
        if (!running.stopping && !this.stopped) this.options.onUnexpectedExit?.(name, code, signal);
        resolve();
      };
      child.once("exit", done);
      child.once("error", () => done(null, null));
    });
    return running;
  }

  private spawnNats(index: number): void {
    const node = this.nats[index] as NatsNode;
    const running = this.spawnLogged(node.name, node.logFile, NATS_SERVER_BIN, ["-c", node.configFile], process.env, (slot) => {
      if (this.natsRunning[index] === running) this.natsRunning[index] = slot;
    });
    this.natsRunning[index] = running;
  }

  /** kill -9 of NATS node `index`; resolves once it has exited. */
  async killNats(index: number): Promise<void> {
    const running = this.natsRunning[index];
    if (running === undefined) return;
    running.stopping = true;
    running.child.kill("SIGKILL");
    await running.exited;
  }

  /** Starts NATS node `index` again on its configuration and store (after `killNats`); resolves once every running node is healthy. */
  async startNats(index: number): Promise<void> {
    if (this.natsRunning[index] !== undefined) throw new Error(`${this.nats[index]?.name} is running`);
    this.spawnNats(index);
    await this.waitForNats();
  }

  /**
   * Resolves once every running NATS node's /healthz says JetStream is healthy (a meta leader known,
   * the node current) and the meta leader lists every running node as a member. A node left
   * out of the meta group (scripts/nats-meta-group.ts) is restarted on its store, at most a few times.
   */
  async waitForNats(): Promise<void> {
    const deadline = performance.now() + this.readyTimeoutMs;
    const watch = new MetaGroupWatch(async (name) => {
      const index = this.nats.findIndex((node) => node.name === name);
      console.error(`[local-cluster] NATS node ${name} was left out of the JetStream meta group: restarting it`);
      await this.killNats(index);
      this.spawnNats(index);
    });
    for (;;) {
      const states = await Promise.all(
        this.nats.map(async (node, i) => {
          if (this.natsRunning[i] === undefined) return "";
          const reply = await statusOf(`http://127.0.0.1:${node.monitorPort}/healthz`);
          return reply?.status === 200 ? "" : `${node.name}: ${reply === undefined ? "not answering" : `${reply.status} ${reply.text.trim()}`}`;
        }),
      );
      let problems = states.filter((state) => state !== "");
      if (problems.length === 0) {
        const missing = await watch.check(this.nats.filter((_, i) => this.natsRunning[i] !== undefined));
        if (missing === undefined) return;
        problems = [missing];
      }
      if (this.natsRunning.every((running) => running === undefined)) throw new Error(`every NATS node exited; see ${path.join(this.options.dir, "logs")}`);
      if (performance.now() > deadline) throw new Error(`NATS not ready within ${this.readyTimeoutMs} ms: ${problems.join("; ")} (logs in ${path.join(this.options.dir, "logs")})`);
      await pause(50);
    }
  }

  private serviceEnv(node: ServiceNode): NodeJS.ProcessEnv {
    return {
      ...process.env,
      // As `npm start` runs the service (package.json; docs/deploy.md, "Memory").
      MALLOC_MMAP_THRESHOLD_: process.env["MALLOC_MMAP_THRESHOLD_"] ?? "131072",
      HOST: "127.0.0.1",
      PORT: String(node.port),
      DATA_DIR: node.dataDir,
      LOG_LEVEL: "info",
      SERVICE_HMAC_SECRETS: `operator=${this.options.operatorSecret}`,
      SERVICE_OPERATOR_ACTORS: "operator",
      METRICS_TOKEN: this.options.metricsToken,
      CLUSTER_NATS_URLS: this.natsUrls.join(","),
      CLUSTER_NODE_ID: node.nodeId,
      AUDIT_SIGNING_KEY_FILE: this.signingKeyFile,
      ...(this.options.partitions === undefined ? {} : { CLUSTER_PARTITIONS: String(this.options.partitions) }),
      ...this.options.serviceEnv,
    };
  }

  /** Starts service node `index` (first start or restart, on its data directory and port) and waits until /readyz answers 200. */
  async startService(index: number): Promise<void> {
    const node = this.services[index];
    if (node === undefined) throw new Error(`no service node ${index}`);
    if (this.serviceRunning[index] !== undefined) throw new Error(`service node ${node.nodeId} is running`);
    mkdirSync(node.dataDir, { recursive: true });
    const running = this.spawnLogged(`node ${node.nodeId}`, node.logFile, process.execPath, [...SERVICE_NODE_FLAGS, ...(this.options.serviceNodeArgs ?? []), MAIN_JS], this.serviceEnv(node), (slot) => {
      if (this.serviceRunning[index] === running) this.serviceRunning[index] = slot;
    });
    this.serviceRunning[index] = running;
    const deadline = performance.now() + this.readyTimeoutMs;
    for (;;) {
      if (this.serviceRunning[index] !== running) throw new Error(`service node ${node.nodeId} exited while starting; see ${node.logFile}`);
      if ((await statusOf(`${node.url}/readyz`))?.status === 200) return;
      if (performance.now() > deadline) throw new Error(`service node ${node.nodeId} not ready within ${this.readyTimeoutMs} ms; see ${node.logFile}`);
      await pause(50);
    }
  }

  /**
   * The partitions each running service node says it serves (its /metrics), by node index; undefined
   * for a node not answering, or not asked (`skip`: a paused node, which would only time out).
   */
  async servedByNode(skip?: number): Promise<Array<number[] | undefined>> {
    return Promise.all(
      this.services.map(async (node, i) => {
        if (this.serviceRunning[i] === undefined || i === skip) return undefined;
        const reply = await statusOf(`${node.url}/metrics`, { authorization: `Bearer ${this.options.metricsToken}` });
        return reply?.status === 200 ? servedPartitions(reply.text) : undefined;
      }),
    );
  }

  /** The running node serving `partition` now, if exactly one does. */
  async ownerOf(partition: number): Promise<number | undefined> {
    const served = await this.servedByNode();
    const owners = served.flatMap((partitions, i) => (partitions?.includes(partition) === true ? [i] : []));
    return owners.length === 1 ? owners[0] : undefined;
  }

  /**
   * Resolves once every partition in 0…partitions−1 is served by exactly one running node, and
   * (with `balanced`) the running nodes serve as many each as an even spread gives.
   */
  async waitUntilServed(partitions: number, options: { balanced?: boolean; timeoutMs?: number } = {}): Promise<void> {
    const deadline = performance.now() + (options.timeoutMs ?? this.readyTimeoutMs);
    let last = "";
    for (;;) {
      const served = await this.servedByNode();
      const counts = new Array<number>(partitions).fill(0);
      for (const list of served) for (const p of list ?? []) if (p < partitions) counts[p] = (counts[p] ?? 0) + 1;
      const runningLists = served.filter((_, i) => this.serviceRunning[i] !== undefined);
      const everyOnce = counts.every((count) => count === 1);
      const low = Math.floor(partitions / Math.max(1, runningLists.length));
      const balanced = runningLists.every((list) => list !== undefined && list.length >= low && list.length <= low + 1);
      if (everyOnce && (options.balanced !== true || balanced)) return;
      last = served.map((list, i) => `${this.services[i]?.nodeId}: ${list === undefined ? "-" : `[${list.join(",")}]`}`).join(" ");
      if (performance.now() > deadline) throw new Error(`the partitions were not each served by one node in time (${last})`);
      await pause(100);
    }
  }

  /** kill -9 of service node `index`; resolves once it has exited. */
  async killService(index: number): Promise<void> {
    const running = this.serviceRunning[index];
    if (running === undefined) return;
    running.stopping = true;
    running.child.kill("SIGKILL");
    await running.exited;
  }

  /** SIGSTOP of service node `index`: it freezes with its sockets open, as in a long stall (resume with `resumeService`). */
  pauseService(index: number): void {
    this.serviceRunning[index]?.child.kill("SIGSTOP");
  }

  /** SIGCONT of a paused service node. */
  resumeService(index: number): void {
    this.serviceRunning[index]?.child.kill("SIGCONT");
  }

  /** A graceful stop of service node `index` (SIGTERM; SIGKILL after `graceMs`). */
  async stopService(index: number, graceMs = 20_000): Promise<void> {
    await LocalCluster.terminate(this.serviceRunning[index], graceMs);
  }

  private static async terminate(running: Running | undefined, graceMs: number): Promise<void> {
    if (running === undefined) return;
    running.stopping = true;
    running.child.kill("SIGCONT"); // a paused process cannot act on SIGTERM
    running.child.kill("SIGTERM");
    const timer = setTimeout(() => running.child.kill("SIGKILL"), graceMs);
    await running.exited;
    clearTimeout(timer);
  }

  /** Stops every service node gracefully (they release their leases and snapshot while NATS still answers), then every NATS node. Idempotent. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await Promise.all(this.serviceRunning.map((running) => LocalCluster.terminate(running, 20_000)));
    await Promise.all(this.natsRunning.map((running) => LocalCluster.terminate(running, 10_000)));
  }
}
