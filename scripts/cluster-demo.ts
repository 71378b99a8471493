/**
 * `npm run cluster:demo`: the cluster mode on this machine in one command (docs/cluster.md,
 * "Runbook"). Fetches nats-server if absent (scripts/fetch-nats-server.sh), starts 3 nats-server
 * nodes (one JetStream cluster, `sync_interval: always`) and 3 service nodes a, b, c (the built
 * service, each with its own data directory, one operator secret), waits until every partition is
 * served by one node, prints where to send requests, the operator credentials and an example, and
 * runs until Ctrl-C (or SIGTERM/SIGHUP), then stops the service nodes and NATS and exits 0.
 *
 *   npm run cluster:demo -- [--dir data/cluster-demo] [--partitions 6] [--free-ports] [--keep]
 *
 * --dir         where everything is kept (default data/cluster-demo, git-ignored); emptied at start
 * --keep        start on what --dir holds from a previous run instead (the cluster restarts whole)
 * --free-ports  any free loopback ports instead of 8081–8083 (service) and 4222–4224 (NATS)
 * --partitions  CLUSTER_PARTITIONS for a new cluster (default 6)
 *
 * Nothing secret is printed: the operator secret and the metrics token are in files (0600) under
 * --dir, and the example reads them from there.
 */
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { DEMO_PORTS, FETCH_NATS_SCRIPT, LocalCluster, NATS_SERVER_BIN, REPO_ROOT } from "./local-cluster.js";

function flag(name: string): boolean {
  return process.argv.includes(`--${name}`);
}

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  const value = at > 0 ? process.argv[at + 1] : undefined;
  if (at > 0 && (value === undefined || value.startsWith("--"))) throw new Error(`--${name} needs a value`);
  return value ?? fallback;
}

const say = (line = ""): void => {
  process.stdout.write(`${line}\n`);
};

/** A path as the user should type it from the repository root (where npm runs this). */
function shown(file: string): string {
  const relative = path.relative(REPO_ROOT, file);
  return relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative) ? relative : file;
}

function writePrivate(file: string, text: string): void {
  writeFileSync(file, text, { mode: 0o600 });
}

/** The operator secret and metrics token: kept from the previous run with --keep, else new. */
function credentials(dir: string): { operatorSecret: string; metricsToken: string } {
  const operatorFile = path.join(dir, "operator.secret");
  const metricsFile = path.join(dir, "metrics.token");
  if (existsSync(operatorFile) && existsSync(metricsFile)) {
    const operator = JSON.parse(readFileSync(operatorFile, "utf8")) as { secret: string };
    return { operatorSecret: operator.secret, metricsToken: readFileSync(metricsFile, "utf8").trim() };
  }
  const operatorSecret = randomBytes(32).toString("base64url");
  const metricsToken = randomBytes(32).toString("base64url");
  // The format `market-service provision --operator-secret-file` reads.
  writePrivate(operatorFile, `${JSON.stringify({ actorId: "operator", secret: operatorSecret })}\n`);
  writePrivate(metricsFile, `${metricsToken}\n`);
  return { operatorSecret, metricsToken };
}

function ensureNatsServer(): void {
  if (existsSync(NATS_SERVER_BIN)) return;
  say(`cluster-demo: nats-server not found at ${shown(NATS_SERVER_BIN)}; fetching it (${shown(FETCH_NATS_SCRIPT)})`);
  const fetched = spawnSync("bash", [FETCH_NATS_SCRIPT], { cwd: REPO_ROOT, stdio: "inherit" });
  if (fetched.status !== 0 || !existsSync(NATS_SERVER_BIN)) throw new Error(`fetching nats-server failed (exit ${fetched.status}); run bash scripts/fetch-nats-server.sh to see why`);
}

/** The example: provision on a, token on c, create on b, claim through c, read on a. */
function example(cluster: LocalCluster, dir: string): string[] {
  const [a, b, c] = cluster.services.map((node) => node.url);
  const demo = shown(dir);
  const market = '{"commandId":"c1","marketId":"table-7","principalId":"alice","subject":{"schema":"table.v1","data":{"seats":4}},"mechanism":{"presetId":"direct-claim.v1","config":{"capacity":1,"pricing":{"mode":"free"},"confirmation":"none"}}}';
  return [
    `DEMO=${demo}`,
    `npx market-service provision --url ${a} --operator-secret-file $DEMO/operator.secret --principal alice --out $DEMO/identities/alice.identity.json`,
    `npx market-service provision --url ${a} --operator-secret-file $DEMO/operator.secret --principal bob --out $DEMO/identities/bob.identity.json`,
    `ALICE=$(npx market-service token --identity $DEMO/identities/alice.identity.json)                # taken on node a`,
    `BOB=$(npx market-service token --identity $DEMO/identities/bob.identity.json --url ${c})   # taken on node c`,
    `curl -s ${b}/v1/markets -H "authorization: Bearer $ALICE" -d '${market}'; echo`,
    `curl -s ${b}/v1/markets/table-7/publish -H "authorization: Bearer $ALICE" -d '{"commandId":"c2","principalId":"alice","expectedVersion":1}'; echo`,
    `curl -s ${c}/v1/markets/table-7/direct-claims -H "authorization: Bearer $BOB" -d '{"commandId":"k1","principalId":"bob"}'; echo`,
    `curl -s ${a}/v1/markets/table-7 -H "authorization: Bearer $ALICE"; echo`,
    `curl -s ${a}/metrics -H "authorization: Bearer $(cat $DEMO/metrics.token)" | grep '^market_cluster_partition_served'`,
  ];
}

async function main(): Promise<void> {
  const dir = path.resolve(REPO_ROOT, option("dir", "data/cluster-demo"));
  const partitions = Number(option("partitions", "6"));
  if (!Number.isInteger(partitions) || partitions < 1 || partitions > 256) throw new Error("--partitions must be an integer from 1 to 256");
  const keep = flag("keep");
  ensureNatsServer();
  if (!keep) rmSync(dir, { recursive: true, force: true });
  mkdirSync(path.join(dir, "identities"), { recursive: true, mode: 0o700 });
  const { operatorSecret, metricsToken } = credentials(dir);

  say(`cluster-demo: starting 3 NATS nodes (JetStream, sync_interval: always) and 3 service nodes in ${shown(dir)}${keep ? " (kept from the last run)" : ""}`);
  const started = await LocalCluster.start({
    dir,
    partitions,
    ports: flag("free-ports") ? { kind: "free" } : DEMO_PORTS,
    operatorSecret,
    metricsToken,
    onUnexpectedExit: (name, code, signal) => {
      if (stopRequest === undefined) say(`cluster-demo: ${name} exited (${signal ?? `code ${code}`}); the others go on (its partitions move to them)`);
    },
  });
  cluster = started;
  dataDir = dir;
  if (stopRequest !== undefined) return stop(stopRequest, 0);
  await started.waitUntilServed(partitions);
  const width = Math.max(...started.services.map((node) => node.url.length));
  say(`cluster-demo: ready: 3 NATS + 3 service nodes, ${partitions} partitions, each served by one node`);
  say();
  for (const [i, node] of started.services.entries()) say(`  node ${node.nodeId}  ${node.url.padEnd(width)}  pid ${started.servicePid(i)}  log ${shown(node.logFile)}`);
  say(`  NATS    ${started.natsUrls.join(",")}  (pids ${started.nats.map((_, i) => started.natsPid(i)).join(", ")}; logs ${shown(path.join(dir, "logs"))})`);
  say();
  say(`Any node answers any request (a node that does not own a market's partition forwards it to the owner).`);
  say(`Operator credentials: actor "operator", secret in ${shown(path.join(dir, "operator.secret"))} ({"actorId","secret"}, mode 0600):`);
  say(`  npx market-service provision --operator-secret-file ${shown(path.join(dir, "operator.secret"))} --url <node URL> --principal <id>`);
  say(`Metrics (per-partition owner, epoch, served): bearer token in ${shown(path.join(dir, "metrics.token"))}.`);
  say(`Audit signing key, one for every node (AUDIT_SIGNING_KEY_FILE, mode 0600): ${shown(started.signingKeyFile)}; GET /v1/audit/keys on any node publishes its public key.`);
  say();
  say(`Try it, from the repository root (alice opens a market on node b, bob claims through node c)${keep ? "; on a kept cluster alice, bob and table-7 may exist already" : ""}:`);
  say("# --- example ---");
  for (const line of example(started, dir)) say(line);
  say("# --- end of example ---");
  say();
  say(`Kill a node to see failover (kill -9 <pid>): its partitions are served by the others within seconds.`);
  say("Stop everything: Ctrl-C.");
}

let cluster: LocalCluster | undefined;
let dataDir: string | undefined;
/** Why the demo stops, once it was asked to. */
let stopRequest: string | undefined;

let stopStarted = false;

/** Stops the service nodes, then NATS, and exits with `status`. Acts once. */
async function stop(why: string, status: number): Promise<void> {
  if (stopStarted) return;
  stopStarted = true;
  say(`\ncluster-demo: ${why}: stopping the service nodes, then NATS…`);
  await cluster?.stop();
  say(`cluster-demo: stopped${dataDir === undefined ? "" : ` (data and logs stay in ${shown(dataDir)})`}`);
  process.exit(status);
}

// The first stop signal stops everything in order; a repeat (the terminal's Ctrl-C and npm's
// forwarded copy arrive together) is the same request. The children run in process groups of
// their own, so the terminal's signal never reaches them directly. A signal during the start is
// acted on once the start returns.
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.on(signal, () => {
    if (stopRequest !== undefined) return;
    stopRequest = `${signal} received`;
    if (cluster !== undefined) void stop(stopRequest, 0);
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`cluster-demo: ${error instanceof Error ? error.message : String(error)}\n`);
  stopRequest ??= "failed";
  void stop("failed", 1);
});
