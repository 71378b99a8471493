/**
 * Service settings from the environment, validated at start: a bad value throws a ConfigError
 * naming the setting and what is allowed (the process then exits with status 2). Authentication
 * settings are validated by auth/config.ts.
 *
 * | setting                    | allowed                                  | default                 |
 * |----------------------------|------------------------------------------|-------------------------|
 * | HOST                       | IP address or host name to bind          | 127.0.0.1               |
 * | PORT                       | integer 0..65535 (0: any free port)      | 8080                    |
 * | DATA_DIR                   | directory (created if missing)           | ./data                  |
 * | SHARDS                     | integer 1..64; a data directory keeps    | the directory's count,  |
 * |                            | the count it was created with            | else CPU cores          |
 * | TLS_CERT_FILE, TLS_KEY_FILE| both or neither; readable PEM files      | none (plain HTTP)       |
 * | CHECKPOINT_EVERY_COMMANDS  | integer 1..100,000,000                   | 100000                  |
 * | CHECKPOINT_EVERY_SECONDS   | integer 0..86,400 (0: only by count)     | 60                      |
 * | LOG_LEVEL                  | debug, info, warn, error, silent         | info                    |
 * | MCP_RESPONSE_MODE          | json (one JSON body) or sse (event stream)| json                   |
 * | EVENTS_KEEP_ALIVE_MS       | integer 100..60,000: a comment on an idle| 5000                    |
 * |                            | event stream this often (docs/events.md) |                         |
 * | EVENTS_SUBSCRIBER_BUFFER_BYTES | integer 4,096..1,073,741,824: unread | 1048576                 |
 * |                            | events kept per subscriber, then overflow|                         |
 * | CLUSTER_NATS_URLS          | comma-separated nats:// URLs; set: cluster| unset: embedded default|
 * |                            | mode (docs/cluster.md)                   |                         |
 * | CLUSTER_NODE_ID            | [A-Za-z0-9_-]{1,64}, unique per node     | required in cluster mode|
 * | CLUSTER_PARTITIONS         | integer 1..256; read when the cluster is | 6                       |
 * |                            | created, then the recorded count is used |                         |
 * | CLUSTER_KEY_HOMES          | integer 1..CLUSTER_PARTITIONS; read when | 1                       |
 * |                            | the cluster is created, like the count   |                         |
 * | CLUSTER_LEASE_MS           | integer 300..60,000                      | 1500                    |
 * | CLUSTER_FORWARD_TIMEOUT_MS | integer 100..60,000                      | 5000                    |
 * | CLUSTER_SNAPSHOT_EVERY_COMMANDS | integer 1..100,000,000: a partition  | 5000                    |
 * |                            | snapshots itself after this many commands|                         |
 * | AUDIT_SIGNING_KEY_FILE     | PEM PKCS#8 Ed25519 private key, mode 0600,| unset: generated at     |
 * |                            | outside DATA_DIR (audit-signing-key.ts)  | DATA_DIR/audit-signing- |
 * |                            |                                          | key.pem, with a warning |
 * | AUDIT_KEY_HISTORY_FILE     | JSON key history after rotations          | unset: the current key  |
 * |                            | (docs/proofs.md, "Signing keys")         | alone                   |
 * | AUDIT_HEADS                | on, or off (no signed heads, no receipts: | on                      |
 * |                            | for comparisons; docs/proofs.md)         |                         |
 * | AUDIT_HEAD_EVERY_COMMANDS  | integer 1..10,000,000: a head recorded   | 10000                   |
 * |                            | after this many entries of a log ...     |                         |
 * | AUDIT_HEAD_EVERY_SECONDS   | integer 1..86,400: ... or once the oldest| 1                       |
 * |                            | entry no head covers is this old         |                         |
 * | AUDIT_ACCEPT_UNSIGNED_TAIL | <log>:<first uncovered entry>[,…]: start | unset: a log with more  |
 * |                            | on a log with more unsigned entries than | than a crash leaves is  |
 * |                            | a crash leaves (logged, and recorded)    | refused                 |
 * | AUDIT_PROOF_CACHE_BYTES    | integer 0..8,589,934,592: log trees kept | 268435456 (256 MiB)     |
 * |                            | between proofs, per pool thread          |                         |
 */
import { availableParallelism } from "node:os";
import * as path from "node:path";
import { ConfigError } from "./auth/config-error.js";
import { MAX_LINGER_MS } from "../engine/runtime/batch-gathering.js";
import { DEFAULT_PROOF_CACHE_BYTES } from "../engine/audit/proof-tree-cache.js";
import { ACCEPT_UNSIGNED_TAIL_SETTING, DEFAULT_HEAD_INTERVAL, parseAcceptedTails, type HeadInterval } from "../engine/audit/heads/unsigned-tail.js";
import {
  DEFAULT_FORWARD_TIMEOUT_MS,
  DEFAULT_SNAPSHOT_EVERY_COMMANDS,
  DEFAULT_BATCH_LINGER_MS,
  DEFAULT_KEY_HOMES,
  DEFAULT_LEASE_MS,
  DEFAULT_PARTITIONS,
  MAX_PARTITIONS,
  NODE_ID_PATTERN,
  type ClusterSettings,
} from "../engine/cluster/cluster-settings.js";

export { ConfigError };

export type LogLevelSetting = "debug" | "info" | "warn" | "error" | "silent";

export interface ServiceConfig {
  host: string;
  port: number;
  dataDir: string;
  /** SHARDS as set, or undefined: the data directory's recorded count (else `defaultShards`) is used. */
  shards: number | undefined;
  /** The shard count of a new data directory when SHARDS is not set. */
  defaultShards: number;
  tlsCertFile: string | undefined;
  tlsKeyFile: string | undefined;
  checkpointEveryCommands: number;
  checkpointEverySeconds: number;
  logLevel: LogLevelSetting;
  mcpResponseMode: "json" | "sse";
  /** Live market events (docs/events.md): the keep-alive interval of an idle stream ... */
  eventsKeepAliveMs: number;
  /** ... and how much one subscriber may leave unread before its stream ends with an overflow. */
  eventsSubscriberBufferBytes: number;
  /** Cluster mode's settings; undefined: the embedded default. */
  cluster: ClusterSettings | undefined;
  /** AUDIT_SIGNING_KEY_FILE resolved; undefined: the quick-start key in DATA_DIR (audit-signing-key.ts). */
  auditSigningKeyFile: string | undefined;
  /** AUDIT_KEY_HISTORY_FILE resolved; undefined: the current key is the whole history. */
  auditKeyHistoryFile: string | undefined;
  /** When each log records a signed head (engine/audit/heads/log-heads.ts); undefined: AUDIT_HEADS=off. */
  auditHeads: HeadInterval | undefined;
  /**
   * AUDIT_ACCEPT_UNSIGNED_TAIL: the unsigned tails (`<logId>:<first entry>`) an operator accepts at
   * start (engine/audit/heads/unsigned-tail.ts); each one accepted is logged and recorded in its log.
   */
  acceptUnsignedTails: string[];
  /** AUDIT_PROOF_CACHE_BYTES: each worker pool thread's bound for log trees kept between proofs (engine/audit/proof-tree-cache.ts). */
  proofCacheBytes: number;
}

export type Env = Readonly<Record<string, string | undefined>>;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = /^[0-9]{1,10}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new ConfigError(name, `must be an integer from ${min} to ${max} (got ${JSON.stringify(raw.slice(0, 40))})`);
  }
  return value;
}

const HOST_PATTERN = /^[A-Za-z0-9.:[\]-]{1,253}$/;
const LOG_LEVELS: readonly LogLevelSetting[] = ["debug", "info", "warn", "error", "silent"];

export function loadServiceConfig(env: Env, cwd: string = process.cwd()): ServiceConfig {
  const host = env["HOST"] === undefined || env["HOST"] === "" ? "127.0.0.1" : env["HOST"];
  if (!HOST_PATTERN.test(host)) throw new ConfigError("HOST", "must be an IP address or a host name");
  const tlsCertFile = env["TLS_CERT_FILE"] === "" ? undefined : env["TLS_CERT_FILE"];
  const tlsKeyFile = env["TLS_KEY_FILE"] === "" ? undefined : env["TLS_KEY_FILE"];
  if ((tlsCertFile === undefined) !== (tlsKeyFile === undefined)) {
    throw new ConfigError(tlsCertFile === undefined ? "TLS_CERT_FILE" : "TLS_KEY_FILE", "TLS_CERT_FILE and TLS_KEY_FILE must be set together");
  }
  const logLevel = (env["LOG_LEVEL"] === undefined || env["LOG_LEVEL"] === "" ? "info" : env["LOG_LEVEL"]) as LogLevelSetting;
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError("LOG_LEVEL", `must be one of ${LOG_LEVELS.join(", ")}`);
  const mcpResponseMode = env["MCP_RESPONSE_MODE"] === undefined || env["MCP_RESPONSE_MODE"] === "" ? "json" : env["MCP_RESPONSE_MODE"];
  if (mcpResponseMode !== "json" && mcpResponseMode !== "sse") throw new ConfigError("MCP_RESPONSE_MODE", "must be json or sse");
  const dataDirSetting = env["DATA_DIR"] === undefined || env["DATA_DIR"] === "" ? "./data" : env["DATA_DIR"];
  return {
    host,
    port: integer(env, "PORT", 8080, 0, 65_535),
    dataDir: path.resolve(cwd, dataDirSetting),
    shards: env["SHARDS"] === undefined || env["SHARDS"] === "" ? undefined : integer(env, "SHARDS", 1, 1, 64),
    defaultShards: Math.min(availableParallelism(), 64),
    tlsCertFile,
    tlsKeyFile,
    checkpointEveryCommands: integer(env, "CHECKPOINT_EVERY_COMMANDS", 100_000, 1, 100_000_000),
    checkpointEverySeconds: integer(env, "CHECKPOINT_EVERY_SECONDS", 60, 0, 86_400),
    logLevel,
    mcpResponseMode,
    eventsKeepAliveMs: integer(env, "EVENTS_KEEP_ALIVE_MS", 5000, 100, 60_000),
    eventsSubscriberBufferBytes: integer(env, "EVENTS_SUBSCRIBER_BUFFER_BYTES", 1024 * 1024, 4096, 1024 * 1024 * 1024),
    cluster: clusterSettings(env),
    auditSigningKeyFile: isSet(env, "AUDIT_SIGNING_KEY_FILE") ? path.resolve(cwd, env["AUDIT_SIGNING_KEY_FILE"] as string) : undefined,
    auditKeyHistoryFile: isSet(env, "AUDIT_KEY_HISTORY_FILE") ? path.resolve(cwd, env["AUDIT_KEY_HISTORY_FILE"] as string) : undefined,
    auditHeads: auditHeadSettings(env),
    acceptUnsignedTails: acceptedTailsSetting(env),
    proofCacheBytes: integer(env, "AUDIT_PROOF_CACHE_BYTES", DEFAULT_PROOF_CACHE_BYTES, 0, 8 * 1024 ** 3),
  };
}

/** AUDIT_ACCEPT_UNSIGNED_TAIL: names of tails as a refusal gives them. */
function acceptedTailsSetting(env: Env): string[] {
  const parsed = parseAcceptedTails(env[ACCEPT_UNSIGNED_TAIL_SETTING]);
  if (!parsed.ok) throw new ConfigError(ACCEPT_UNSIGNED_TAIL_SETTING, parsed.message);
  if (parsed.names.length > 0 && env["AUDIT_HEADS"] === "off") throw new ConfigError(ACCEPT_UNSIGNED_TAIL_SETTING, "has no effect with AUDIT_HEADS=off (nothing is checked, nothing recorded)");
  return parsed.names;
}

/** AUDIT_HEADS and its interval; with AUDIT_HEADS=off the interval settings may not be set. */
function auditHeadSettings(env: Env): ServiceConfig["auditHeads"] {
  const heads = isSet(env, "AUDIT_HEADS") ? env["AUDIT_HEADS"] : "on";
  if (heads !== "on" && heads !== "off") throw new ConfigError("AUDIT_HEADS", "must be on or off");
  if (heads === "off") {
    for (const name of ["AUDIT_HEAD_EVERY_COMMANDS", "AUDIT_HEAD_EVERY_SECONDS"]) if (isSet(env, name)) throw new ConfigError(name, "has no effect with AUDIT_HEADS=off");
    return undefined;
  }
  return headInterval(env);
}

/** AUDIT_HEAD_EVERY_COMMANDS and AUDIT_HEAD_EVERY_SECONDS: when a log records a head; `verify` reads them too (what a crash leaves). */
export function headInterval(env: Env): HeadInterval {
  return {
    everyCommands: integer(env, "AUDIT_HEAD_EVERY_COMMANDS", DEFAULT_HEAD_INTERVAL.everyCommands, 1, 10_000_000),
    everyMs: integer(env, "AUDIT_HEAD_EVERY_SECONDS", DEFAULT_HEAD_INTERVAL.everyMs / 1000, 1, 86_400) * 1000,
  };
}

function isSet(env: Env, name: string): boolean {
  return env[name] !== undefined && env[name] !== "";
}

/** Cluster mode's settings, or undefined when CLUSTER_NATS_URLS is not set (then no CLUSTER_* may be). */
function clusterSettings(env: Env): ClusterSettings | undefined {
  const urls = env["CLUSTER_NATS_URLS"];
  if (urls === undefined || urls === "") {
    for (const name of ["CLUSTER_NODE_ID", "CLUSTER_PARTITIONS", "CLUSTER_KEY_HOMES", "CLUSTER_LEASE_MS", "CLUSTER_FORWARD_TIMEOUT_MS", "CLUSTER_SNAPSHOT_EVERY_COMMANDS", "CLUSTER_BATCH_LINGER_MS"]) {
      if (isSet(env, name)) throw new ConfigError(name, "is a cluster setting: set CLUSTER_NATS_URLS too, or unset it");
    }
    return undefined;
  }
  const natsUrls = urls.split(",").map((url) => url.trim());
  for (const url of natsUrls) {
    if (!/^(nats|tls):\/\/[A-Za-z0-9.:[\]_-]{1,253}$/.test(url)) {
      throw new ConfigError("CLUSTER_NATS_URLS", `must be comma-separated nats://host:port URLs (got ${JSON.stringify(url.slice(0, 80))})`);
    }
  }
  const nodeId = env["CLUSTER_NODE_ID"] ?? "";
  if (!NODE_ID_PATTERN.test(nodeId)) throw new ConfigError("CLUSTER_NODE_ID", "must be set in cluster mode: 1 to 64 letters, digits, '-' or '_', unique per node");
  const partitions = isSet(env, "CLUSTER_PARTITIONS") ? integer(env, "CLUSTER_PARTITIONS", DEFAULT_PARTITIONS, 1, MAX_PARTITIONS) : undefined;
  // At most the partitions: the explicit count here, else whatever the cluster records (checked there).
  const keyHomes = isSet(env, "CLUSTER_KEY_HOMES") ? integer(env, "CLUSTER_KEY_HOMES", DEFAULT_KEY_HOMES, 1, partitions ?? MAX_PARTITIONS) : undefined;
  return {
    natsUrls,
    nodeId,
    partitions,
    keyHomes,
    leaseMs: integer(env, "CLUSTER_LEASE_MS", DEFAULT_LEASE_MS, 300, 60_000),
    forwardTimeoutMs: integer(env, "CLUSTER_FORWARD_TIMEOUT_MS", DEFAULT_FORWARD_TIMEOUT_MS, 100, 60_000),
    snapshotEveryCommands: integer(env, "CLUSTER_SNAPSHOT_EVERY_COMMANDS", DEFAULT_SNAPSHOT_EVERY_COMMANDS, 1, 100_000_000),
    batchLingerMs: integer(env, "CLUSTER_BATCH_LINGER_MS", DEFAULT_BATCH_LINGER_MS, 0, MAX_LINGER_MS),
  };
}
