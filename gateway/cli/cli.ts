#!/usr/bin/env node
/**
 * market-service command line: `serve` runs the service (the default); `replay` and `verify` audit a
 * data directory from its raw logs, or a cluster partition's stream (live or exported, see
 * stream-audit.ts); `export-stream` writes a stream to an export file; `signing-key` rotates and
 * shows the audit signing key (signing-key.ts); `proof` and `check-proof` build a log's proofs from
 * a data directory and check a saved proof file offline (proof.ts); `provision`, `token`, `claim`,
 * `bid` and `check-receipt` talk to a running service through the client SDK (@market-service/client, packages/client/).
 */
import { existsSync } from "node:fs";
import type { StreamSourceChoice } from "./stream-audit.js";
import { availableParallelism } from "node:os";
import * as path from "node:path";
import { Command, InvalidArgumentError, Option } from "commander";
import { replayDataDir, replayMarketRecord, verifyDataDir, type AuditOptions } from "../../engine/replay/audit-replay.js";
import { publicKeysOption } from "./public-keys-file.js";
import { headInterval } from "../config.js";
import { auditSummary as summary, printMarkets, printVerify } from "./audit-output.js";
import { progressReporter } from "./progress-bar.js";
import { MAX_POOL_THREADS } from "../../engine/pool/worker-pool.js";
import { serve } from "../main.js";
import { settingsHelp } from "../settings.js";
import { DEFAULT_URL, provisionCommand, tokenCommand, URL_ENV } from "./provision-token.js";
import type { CheckReceiptOptions } from "./participant.js";
import { SERVICE_VERSION } from "../service.js";
import { DataDirInUseError, lockDataDir } from "../../storage/data-dir-lock.js";

const program = new Command();
program
  .name("market-service")
  .description("Deterministic market service: direct claims and sealed second-price auctions, durable and replayable.")
  .showHelpAfterError()
  // `market-service --version` / `-V`: the service version (also in the OpenAPI and MCP info).
  .version(SERVICE_VERSION, "-V, --version", "print the service version");


const dataOption = (value: string): string => {
  if (value.length === 0) throw new InvalidArgumentError("a directory is required");
  return value;
};
/** The service's own default (gateway/config.ts): DATA_DIR, else ./data. */
const DEFAULT_DATA_DIR = process.env["DATA_DIR"] === undefined || process.env["DATA_DIR"] === "" ? "./data" : process.env["DATA_DIR"];
const DATA_HELP = "data directory (default: $DATA_DIR, else ./data); refused while a service runs on it: stop it, or audit a copy";

/**
 * Runs an audit of `dataDir` holding its lock: opening a log truncates a torn tail, which must never
 * happen under a live writer, and a service must not start on the directory mid-audit.
 */
async function withDataDirLock<T>(dataDir: string, command: string, audit: () => Promise<T>): Promise<T | undefined> {
  const resolved = path.resolve(dataDir);
  if (!existsSync(resolved)) {
    process.stderr.write(`${command}: no data directory at ${resolved}\n`);
    process.exitCode = 1;
    return undefined;
  }
  let lock;
  try {
    lock = await lockDataDir(resolved, command, Date.now());
  } catch (error) {
    if (!(error instanceof DataDirInUseError)) throw error;
    process.stderr.write(`${command}: ${error.message}; ${command} reads a stopped service's data: stop the service, or copy the directory (cp -a) and ${command} the copy\n`);
    process.exitCode = 1;
    return undefined;
  }
  try {
    return await audit();
  } finally {
    lock.release();
  }
}

/** Worker threads for replay/verify: shards are audited in parallel, at most one thread each. */
const MAX_AUDIT_THREADS = MAX_POOL_THREADS;
const threadsOption = (value: string): number => {
  const threads = /^[0-9]{1,3}$/.test(value) ? Number(value) : Number.NaN;
  if (!(threads >= 1 && threads <= MAX_AUDIT_THREADS)) throw new InvalidArgumentError(`an integer from 1 to ${MAX_AUDIT_THREADS} is required`);
  return threads;
};
const THREADS_HELP = "worker threads auditing shards in parallel (one per shard at most); 1 audits in the main thread";

const NATS_HELP = "audit a cluster partition's stream instead of a data directory: the NATS servers' URLs, comma-separated (with --stream)";
const STREAM_HELP = "the stream to audit (a partition's: partition-<p>), with --nats";
const STREAM_EXPORT_HELP = "audit a stream export file (written by export-stream) instead of a data directory";
const nonEmpty = (what: string) => (value: string): string => {
  if (value.trim().length === 0) throw new InvalidArgumentError(`${what} is required`);
  return value;
};

/** `--nats a,b,c` as server URLs (empty if it names none). */
function serversOf(value: string | undefined): string[] {
  return (value ?? "").split(",").map((url) => url.trim()).filter((url) => url.length > 0);
}

interface SourceOptions {
  nats?: string;
  stream?: string;
  streamExport?: string;
}

/**
 * The stream an audit reads, if its options name one; undefined for a data directory; null (with
 * the refusal written and the exit code set) when they name two sources or half of one.
 */
function streamSource(command: string, options: SourceOptions, dataGiven: boolean): StreamSourceChoice | undefined | null {
  const refuse = (why: string): null => {
    process.stderr.write(`${command}: ${why}\n`);
    process.exitCode = 1;
    return null;
  };
  const live = options.nats !== undefined || options.stream !== undefined;
  if (!live && options.streamExport === undefined) return undefined;
  if (live && options.streamExport !== undefined) return refuse("--stream-export reads an export file, --nats/--stream a live stream: give one of them");
  if (dataGiven) return refuse("--data names a data directory, and --nats/--stream or --stream-export a stream: give one source");
  if (options.streamExport !== undefined) return { kind: "export", file: options.streamExport };
  const servers = serversOf(options.nats);
  if (servers.length === 0) return refuse("--stream needs --nats <url,...>: the NATS servers holding the stream");
  if (options.stream === undefined) return refuse("--nats needs --stream <name>: the partition's stream (partition-<p>)");
  return { kind: "live", servers, stream: options.stream };
}

program
  .command("serve", { isDefault: true })
  .description("run the service (the default command); settings come from the environment")
  .addHelpText("after", `\n${settingsHelp()}`)
  .action(() => serve());

program
  .command("replay")
  .description("re-run every logged command of every shard through the engine (raw segments only, no snapshots) and print each market's record hash")
  .option("--data <dir>", DATA_HELP, dataOption, DEFAULT_DATA_DIR)
  .option("--market <id>", "print this market's full record as JSON instead")
  .option("--json", "machine-readable output")
  .option("--threads <n>", THREADS_HELP, threadsOption, availableParallelism())
  .option("--nats <urls>", NATS_HELP, nonEmpty("a NATS URL"))
  .option("--stream <name>", STREAM_HELP, nonEmpty("a stream name"))
  .option("--stream-export <file>", STREAM_EXPORT_HELP, nonEmpty("a file"))
  .action(async (options: { data: string; market?: string; json?: boolean; threads: number } & SourceOptions, command: Command) => {
    const stream = streamSource("replay", options, command.getOptionValueSource("data") === "cli");
    if (stream === null) return;
    if (stream !== undefined) {
      const { replayFromStream } = await import("./stream-audit.js");
      await replayFromStream(stream, options);
      return;
    }
    await replayDirectory(options);
  });

function replayDirectory(options: { data: string; market?: string; json?: boolean; threads: number }): Promise<void> {
  return withDataDirLock(options.data, "replay", async () => {
    if (options.market !== undefined) {
      const record = replayMarketRecord(options.data, options.market);
      if (record === undefined) {
        process.stderr.write(`replay: no market ${JSON.stringify(options.market)} in ${options.data}\n`);
        process.exitCode = 1;
        return;
      }
      process.stdout.write(`${JSON.stringify(record, null, options.json === true ? undefined : 2)}\n`);
      return;
    }
    const progress = progressReporter("replay");
    const result = await replayDataDir(options.data, { onProgress: progress.onProgress, threads: options.threads });
    progress.stop();
    if (options.json === true) process.stdout.write(`${JSON.stringify(result)}\n`);
    else printMarkets(result);
    process.stderr.write(`${summary("replayed", result)}\n`);
  }).then(() => undefined);
}

program
  .command("verify")
  .description("replay, and check every CRC, the hash chain, segment headers, every signed head's root and each shard's newest snapshot against the replayed state; exit 1 naming the first divergence")
  .option("--data <dir>", DATA_HELP, dataOption, DEFAULT_DATA_DIR)
  .option("--public-key <file>", "the service's public key (PEM) or key history (JSON): also check every signed head's signature, and fail a log with no signed head or with more entries after its last head than a crash leaves (at AUDIT_HEAD_EVERY_COMMANDS / AUDIT_HEAD_EVERY_SECONDS from the environment, else their defaults; docs/proofs.md)", nonEmpty("a file"))
  .option("--json", "machine-readable output")
  .option("--threads <n>", THREADS_HELP, threadsOption, availableParallelism())
  .option("--nats <urls>", NATS_HELP, nonEmpty("a NATS URL"))
  .option("--stream <name>", STREAM_HELP, nonEmpty("a stream name"))
  .option("--stream-export <file>", STREAM_EXPORT_HELP, nonEmpty("a file"))
  .action(async (options: VerifyOptions & SourceOptions, command: Command) => {
    const stream = streamSource("verify", options, command.getOptionValueSource("data") === "cli");
    if (stream === null) return;
    const publicKeys = publicKeysOption(options.publicKey);
    if (publicKeys === null) return;
    const checks = publicKeys === undefined ? {} : { publicKeys, headInterval: headInterval(process.env) };
    if (stream !== undefined) {
      const { verifyFromStream } = await import("./stream-audit.js");
      await verifyFromStream(stream, options, checks);
      return;
    }
    await verifyDirectory(options, checks);
  });

/** What verify checks of signed heads beyond their roots: signatures with `publicKeys`, and the unsigned tail at `headInterval`. */
type HeadChecksOptions = Pick<AuditOptions, "publicKeys" | "headInterval">;

interface VerifyOptions {
  data: string;
  json?: boolean;
  threads: number;
  publicKey?: string;
}

function verifyDirectory(options: VerifyOptions, checks: HeadChecksOptions): Promise<void> {
  return withDataDirLock(options.data, "verify", async () => {
    const progress = progressReporter("verify");
    const result = await verifyDataDir(options.data, { onProgress: progress.onProgress, threads: options.threads, ...checks });
    progress.stop();
    printVerify(result, options.json === true);
  }).then(() => undefined);
}

/** A leaf index or tree size: an integer from 0 to 2^53 − 1. */
const countOption = (value: string): number => {
  const count = /^(0|[1-9][0-9]*)$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(count)) throw new InvalidArgumentError("an integer from 0 to 9007199254740991 (2^53 − 1) is required");
  return count;
};

program
  .command("proof")
  .description("an inclusion proof (--leaf I --tree-size N) or a consistency proof (--consistency M N) of a shard's log, from a stopped service's data directory: the JSON the /v1/audit/logs endpoints give (docs/proofs.md)")
  .option("--data <dir>", DATA_HELP, dataOption, DEFAULT_DATA_DIR)
  .requiredOption("--log <logId>", "the log: shard-<n>", nonEmpty("a log id"))
  .option("--leaf <index>", "the leaf to prove (entry sequence − 1)", countOption)
  .option("--tree-size <n>", "the size of the tree the leaf is proven in (take it from a signed head)", countOption)
  .option("--consistency <sizes...>", "two sizes M N: prove the tree of M entries is a prefix of the tree of N")
  .option("--out <file>", "write the proof there (refused if it exists) instead of to stdout", nonEmpty("a file"))
  .action(async (options: { data: string; log: string; leaf?: number; treeSize?: number; consistency?: string[]; out?: string }) => {
    const { proofFromDataDir, proofRequestOf } = await import("./proof.js");
    let consistency: [number, number] | undefined;
    if (options.consistency !== undefined) {
      try {
        if (options.consistency.length !== 2) throw new InvalidArgumentError("two sizes M N are required");
        consistency = [countOption(options.consistency[0] as string), countOption(options.consistency[1] as string)];
      } catch (error) {
        process.stderr.write(`proof: --consistency: ${error instanceof Error ? error.message : String(error)}\n`);
        process.exitCode = 1;
        return;
      }
    }
    const { consistency: _given, ...rest } = options;
    const proofOptions = { ...rest, ...(consistency === undefined ? {} : { consistency }) };
    const request = proofRequestOf(proofOptions);
    if (typeof request === "string") {
      process.stderr.write(`proof: ${request}\n`);
      process.exitCode = 1;
      return;
    }
    await withDataDirLock(options.data, "proof", async () => proofFromDataDir(proofOptions, request));
  });

program
  .command("check-proof")
  .description("check a saved proof file offline, with the service's public keys only: exit 0 saying what was proven, 1 naming the first check that failed, 2 for an unusable file (docs/proofs.md, \"Proof files\")")
  .argument("<file>", "the proof file: {receipt, inclusion, head?, consistency?}")
  .requiredOption("--public-key <file>", "the service's public key (PEM) or key history (JSON), as verify --public-key takes it", nonEmpty("a file"))
  .action(async (file: string, options: { publicKey: string }) => {
    const { checkProofCommand } = await import("./proof.js");
    checkProofCommand(file, options.publicKey);
  });

program
  .command("export-stream")
  .description("write a cluster partition's stream (every message up to its last one now) to an export file that replay and verify read with --stream-export; never overwrites a file")
  .requiredOption("--nats <urls>", "the NATS servers' URLs, comma-separated", nonEmpty("a NATS URL"))
  .requiredOption("--stream <name>", "the stream to export (a partition's: partition-<p>)", nonEmpty("a stream name"))
  .requiredOption("--out <file>", "the export file to write (refused if it exists)", nonEmpty("a file"))
  .action(async (options: { nats: string; stream: string; out: string }) => {
    const servers = serversOf(options.nats);
    if (servers.length === 0) {
      process.stderr.write("export-stream: --nats names no server URL\n");
      process.exitCode = 1;
      return;
    }
    const { exportStream } = await import("./stream-audit.js");
    await exportStream({ servers, stream: options.stream, out: options.out });
  });

const URL_HELP = `service base URL (default: $${URL_ENV}, else the one in the identity file, else ${DEFAULT_URL})`;

program
  .command("provision")
  .description("generate an Ed25519 key pair, provision principal + actor + key through the HMAC-signed admin endpoint, and write the identity (with its private key) to a 0600 file")
  .requiredOption("--principal <id>", "principal id")
  .option("--actor <id>", "actor id (default: the principal id)")
  .option("--key-id <id>", "key id (default: <actor>-key-1)")
  .option("--out <file>", "where to write the identity file (refuses to overwrite; default identities/<principal>.identity.json, a folder git ignores)")
  .option("--url <url>", `service base URL (default: $${URL_ENV}, else ${DEFAULT_URL})`)
  .option("--operator-secret-file <file>", "operator credentials {actorId, secret} (default: $DATA_DIR/operator.secret or ./data/operator.secret); or set SERVICE_HMAC_ACTOR and SERVICE_HMAC_SECRET")
  .action((options) => provisionCommand(options));

program
  .command("token")
  .description("print a bearer token for an identity file (Ed25519 challenge → token)")
  .requiredOption("--identity <file>", "identity file written by `provision`")
  .option("--url <url>", URL_HELP)
  .action((options) => tokenCommand(options));

/** A whole number from 1 to 2^53 − 1 (an amount in minor units, a version). */
const positiveOption = (value: string): number => {
  const n = /^[1-9][0-9]*$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n)) throw new InvalidArgumentError("an integer from 1 to 9007199254740991 (2^53 − 1) is required");
  return n;
};
/** The options every participant command (`claim`, `bid`) takes to say who acts and as which command: new objects for each command. */
function commandIdOption(): Option {
  return new Option("--command-id <id>", "the command id (default: a new UUID); send the same id again to repeat a command safely").argParser(nonEmpty("a command id"));
}
function principalOption(): Option {
  return new Option("--principal <id>", "the principal represented (default: the identity's)").argParser(nonEmpty("a principal id"));
}
function authorityRefOption(): Option {
  return new Option("--authority-ref <id>", "the delegation to act under, for another principal").argParser(nonEmpty("a delegation id"));
}
const RECEIPT_OUT_HELP = "write the command's receipt (the Market-Receipt header's JSON) to this file, refused if it exists; check it later with check-receipt";

program
  .command("claim")
  .description("submit a direct claim on an open direct-claim market with an identity file's key; prints the result JSON and keeps the receipt with --receipt-out")
  .requiredOption("--identity <file>", "identity file written by `provision`", nonEmpty("a file"))
  .requiredOption("--market <id>", "the market", nonEmpty("a market id"))
  .option("--url <url>", URL_HELP)
  .option("--receipt-out <file>", RECEIPT_OUT_HELP, nonEmpty("a file"))
  .option("--expected-version <n>", "claim only at this market version (optimistic check); default: server arrival order", positiveOption)
  .addOption(commandIdOption())
  .addOption(principalOption())
  .addOption(authorityRefOption())
  .action(async (options) => {
    const { claimCommand } = await import("./participant.js");
    await claimCommand(options);
  });

program
  .command("bid")
  .description("submit a sealed bid on an open sealed-auction market with an identity file's key; prints the result JSON (the bid amount is not printed) and keeps the receipt with --receipt-out")
  .requiredOption("--identity <file>", "identity file written by `provision`", nonEmpty("a file"))
  .requiredOption("--market <id>", "the market", nonEmpty("a market id"))
  .requiredOption("--amount-minor <n>", "the bid in minor units of the currency", positiveOption)
  .requiredOption("--currency <code>", "the market's currency (ISO 4217, e.g. EUR)", nonEmpty("a currency"))
  .option("--url <url>", URL_HELP)
  .option("--receipt-out <file>", RECEIPT_OUT_HELP, nonEmpty("a file"))
  .addOption(commandIdOption())
  .addOption(principalOption())
  .addOption(authorityRefOption())
  .action(async (options) => {
    const { bidCommand } = await import("./participant.js");
    await bidCommand(options);
  });

program
  .command("check-receipt")
  .description(
    "check a kept receipt with the service's public keys: its entry must be your command, in the tree its signed head signs, and that tree a prefix of the log now; " +
      "online (--identity: the proofs from the service) or offline (--proof: a saved proof file); exit 0 proven, 1 a check failed (forged, or not this command's receipt), 2 unusable input, 3 could not check (service out of reach or failing, entry withheld) (docs/proofs.md)",
  )
  .argument("<file>", "the kept receipt ({receipt, command}, written by claim/bid --receipt-out), or the Market-Receipt header's JSON with --type --market --command-id --actor")
  .requiredOption("--public-key <file>", "the service's public key (PEM) or key history (JSON) you trust, as verify --public-key takes it", nonEmpty("a file"))
  .option("--identity <file>", "online: identity file to read the proofs with (any provisioned actor)", nonEmpty("a file"))
  .option("--url <url>", URL_HELP)
  .option("--proof-out <file>", "online: also write the proof file that was checked (check it again offline with --proof); refused if it exists", nonEmpty("a file"))
  .option("--proof <file>", "offline: check against this saved proof file ({receipt, inclusion, head?, consistency?}); nothing is fetched", nonEmpty("a file"))
  .option("--type <type>", "bare receipt: the command's type (direct_claim.submit, sealed_auction.submit_bid, …)", nonEmpty("a command type"))
  .option("--market <id>", "bare receipt: the command's market", nonEmpty("a market id"))
  .option("--command-id <id>", "bare receipt: the command id sent", nonEmpty("a command id"))
  .option("--actor <id>", "bare receipt: the actor that sent it", nonEmpty("an actor id"))
  .action(async (file: string, options: CheckReceiptOptions) => {
    const { checkReceiptCommand } = await import("./participant.js");
    await checkReceiptCommand(file, options);
  });

const signingKey = program
  .command("signing-key")
  .description("the audit signing key (Ed25519) that signs log heads: rotate it, show the public keys (docs/proofs.md, \"Signing keys\")");

signingKey
  .command("rotate")
  .description("endorse a new key with the current one and append it to the key history (created if missing); then restart the service with AUDIT_SIGNING_KEY_FILE=<new> AUDIT_KEY_HISTORY_FILE=<history>")
  .requiredOption("--key <file>", "the current private key (PEM PKCS#8 Ed25519, mode 0600): the history's last key", nonEmpty("a file"))
  .requiredOption("--new <file>", "the new private key; generated there (mode 0600) if the file does not exist", nonEmpty("a file"))
  .requiredOption("--history <file>", "the key history JSON to extend (created, starting with --key, if it does not exist)", nonEmpty("a file"))
  .option("--json", "print the new history's keys as JSON")
  .action(async (options: { key: string; new: string; history: string; json?: boolean }) => {
    const { rotateSigningKey } = await import("./signing-key.js");
    rotateSigningKey(options);
  });

signingKey
  .command("show")
  .description("print key ids and public keys (never a private key): of --key, of every key of --history (its chain checked), or, with neither, what the service publishes at GET /v1/audit/keys from its settings")
  .option("--key <file>", "a private key file: print its public key and key id", nonEmpty("a file"))
  .option("--history <file>", "a key history file: check its chain and print every key", nonEmpty("a file"))
  .option("--json", "machine-readable output: {keys: [...]}, the endpoint's body")
  .action(async (options: { key?: string; history?: string; json?: boolean }) => {
    const { showSigningKeys } = await import("./signing-key.js");
    showSigningKeys(options);
  });

program.parseAsync(process.argv).catch((error: unknown) => {
  process.stderr.write(`market-service: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
