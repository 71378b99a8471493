/**
 * The `provision` and `token` command-line commands, on the client SDK (market-client.ts). Secrets go to files (0600) or stdout, never
 * logs. Identity files go to `identities/` by default, a folder the repository's .gitignore keeps
 * out of git (decisions.md T12), as does any `*.identity.json`.
 */
import { closeSync, existsSync, fchmodSync, mkdirSync, openSync, readFileSync, writeSync } from "node:fs";
import * as path from "node:path";
import { DEFAULT_RETRY, explainProvisionRefusal, type IdentityFile, MarketClient, MarketServiceError } from "@market-service/client";

/** The CLI gives up on one attempt after this long rather than hang. */
const REQUEST_TIMEOUT_MS = 30_000;

/**
 * The CLI's client of the service at `url`: the SDK, with its retries. The first retry is announced
 * on stderr, so a person knows why the command waits (a service restarting, say).
 */
export function cliClient(url: string): MarketClient {
  let announced = false;
  return new MarketClient({
    baseUrl: url,
    timeoutMs: REQUEST_TIMEOUT_MS,
    onRetry: ({ failure }) => {
      if (announced) return;
      announced = true;
      process.stderr.write(`market-service: ${failure.message} — trying again for up to ${DEFAULT_RETRY.maxElapsedMs / 1000} s\n`);
    },
  });
}
export const DEFAULT_URL = "http://127.0.0.1:8080";
/** The environment variable that names the service when `--url` does not. */
export const URL_ENV = "MARKET_SERVICE_URL";

/** Where the CLI sends requests: `--url`, else $MARKET_SERVICE_URL, else the identity file's URL, else DEFAULT_URL. */
export function serviceUrl(option: string | undefined, identity?: Pick<IdentityFile, "url">): string {
  const env = process.env[URL_ENV];
  return (option ?? (env === undefined || env === "" ? undefined : env) ?? identity?.url ?? DEFAULT_URL).replace(/\/+$/, "");
}
/** Where `provision` writes when no --out is given: `identities/<principal>.identity.json`. */
export const IDENTITIES_DIR = "identities";

export function defaultIdentityPath(principalId: string): string {
  // A principal id may hold any visible character; keep the file name to a safe set.
  const safe = principalId.replace(/[^A-Za-z0-9._-]/g, "_").replace(/^\.+/, "_");
  return path.join(IDENTITIES_DIR, `${safe}.identity.json`);
}

function operatorCredentials(file: string | undefined): { actorId: string; secret: string } {
  const envActor = process.env["SERVICE_HMAC_ACTOR"];
  const envSecret = process.env["SERVICE_HMAC_SECRET"];
  if (file === undefined && envActor !== undefined && envSecret !== undefined) return { actorId: envActor, secret: envSecret };
  const location = file ?? path.join(process.env["DATA_DIR"] ?? "./data", "operator.secret");
  if (!existsSync(location)) {
    throw new Error(`no operator credentials: ${location} does not exist (pass --operator-secret-file, or set SERVICE_HMAC_ACTOR and SERVICE_HMAC_SECRET)`);
  }
  let parsed: { actorId?: unknown; secret?: unknown };
  try {
    parsed = JSON.parse(readFileSync(location, "utf8")) as { actorId?: unknown; secret?: unknown };
  } catch {
    throw new Error(`${location} is not JSON {"actorId", "secret"}`);
  }
  if (typeof parsed.actorId !== "string" || typeof parsed.secret !== "string") throw new Error(`${location} is not JSON {"actorId", "secret"}`);
  return { actorId: parsed.actorId, secret: parsed.secret };
}

/** Creates `file` with mode 0600 from the start (never readable by others, not even briefly). */
export function writePrivateFile(file: string, text: string): void {
  const fd = openSync(file, "wx", 0o600);
  try {
    // The umask can only take bits away from 0600; fchmod makes the mode exactly 0600 whatever it is.
    fchmodSync(fd, 0o600);
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
}

export async function provisionCommand(options: { principal: string; actor?: string; keyId?: string; out?: string; url?: string; operatorSecretFile?: string }): Promise<void> {
  const out = options.out ?? defaultIdentityPath(options.principal);
  if (existsSync(out)) throw new Error(`${out} exists; refusing to overwrite an identity file`);
  // Only the default folder is created (private to the user); a folder named in --out must exist.
  if (options.out === undefined) mkdirSync(IDENTITIES_DIR, { recursive: true, mode: 0o700 });
  else if (!existsSync(path.dirname(out))) throw new Error(`cannot write ${out}: folder ${path.dirname(out)} does not exist`);
  const client = cliClient(serviceUrl(options.url));
  const operator = operatorCredentials(options.operatorSecretFile);
  const actorId = options.actor ?? options.principal;
  const keyId = options.keyId ?? `${actorId}-key-1`;
  let identity: IdentityFile;
  try {
    identity = await client.provisionNewIdentity({ principalId: options.principal, actorId, keyId }, { credentials: { kind: "hmac", ...operator } });
  } catch (error) {
    if (!(error instanceof MarketServiceError)) throw error;
    throw new Error(await explainProvisionRefusal(client, { principalId: options.principal, actorId, keyId, operatorActorId: operator.actorId }, error));
  }
  writePrivateFile(out, `${JSON.stringify(identity, null, 2)}\n`);
  process.stderr.write(`provisioned principal ${JSON.stringify(identity.principalId)} (actor ${JSON.stringify(identity.actorId)}, key ${JSON.stringify(identity.keyId)}) → ${out} (mode 0600, holds the private key)\n`);
}

export function readIdentityFile(file: string): IdentityFile {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    throw new Error(`cannot read identity file ${file} (write one with \`market-service provision\`)`);
  }
  try {
    const parsed = JSON.parse(text) as Partial<IdentityFile>;
    if (typeof parsed.actorId === "string" && typeof parsed.keyId === "string" && typeof parsed.privateKey === "string") return parsed as IdentityFile;
  } catch {
    // reported below
  }
  throw new Error(`${file} is not an identity file written by \`market-service provision\``);
}

export async function tokenCommand(options: { identity: string; url?: string }): Promise<void> {
  const identity = readIdentityFile(options.identity);
  const url = serviceUrl(options.url, identity);
  let grant: { accessToken: string };
  try {
    grant = await cliClient(url).signIn(identity);
  } catch (error) {
    if (error instanceof MarketServiceError && error.code === "unauthenticated") {
      throw new Error(
        `${url} did not accept actor ${JSON.stringify(identity.actorId)} with key ${JSON.stringify(identity.keyId)} (request authentication failed): ` +
          "was this identity provisioned on this service, and is it still active?",
      );
    }
    throw error;
  }
  process.stdout.write(`${grant.accessToken}\n`);
}
