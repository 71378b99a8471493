/**
 * Authentication settings (spec §5, §8), validated once at start-up. A bad value throws a
 * ConfigError that names the setting and says what is allowed; messages never contain a secret or
 * a token, only actor ids and positions.
 *
 * | setting                                  | allowed                                   | default          |
 * |------------------------------------------|-------------------------------------------|------------------|
 * | AUTH_CHALLENGE_TTL                       | integer seconds 1..3600                   | 120              |
 * | AUTH_TOKEN_TTL                           | integer seconds 1..86400                  | 900              |
 * | AUTH_AUDIENCE                            | 1..128 visible ASCII characters           | market-service   |
 * | HMAC_CLOCK_SKEW_SECONDS                  | integer seconds 1..3600                   | 300              |
 * | SERVICE_HMAC_SECRETS / _FILE             | actor=secret,... / JSON {actor: secret}   | none             |
 * | MCP_STATIC_TOKENS / _FILE                | token=actor,...  / JSON {token: actor}    | none             |
 * | SERVICE_OPERATOR_ACTORS                  | comma-separated actor ids                 | none             |
 * | METRICS_TOKEN / METRICS_TOKEN_FILE       | token / file holding the token            | none             |
 */
import * as fs from "node:fs";
import { MAX_IDENTIFIER_LENGTH } from "@market-service/client/wire";
import { isIdentifier, SYSTEM_ID } from "../../engine/identity/validate.js";
import { ConfigError, isValidSecretText, MAX_SECRET_LENGTH, MIN_SECRET_LENGTH } from "./config-error.js";
import { loadOrCreateBootstrapOperator } from "./operator-bootstrap.js";
import { hashTokenText } from "./token-hash.js";

export { ConfigError } from "./config-error.js";

export const DEFAULT_CHALLENGE_TTL_SECONDS = 120;
export const DEFAULT_TOKEN_TTL_SECONDS = 900;
export const DEFAULT_AUDIENCE = "market-service";
export const DEFAULT_HMAC_CLOCK_SKEW_SECONDS = 300;
export const MAX_CHALLENGE_TTL_SECONDS = 3600;
export const MAX_TOKEN_TTL_SECONDS = 86_400;
export const MAX_HMAC_CLOCK_SKEW_SECONDS = 3600;
/** Outstanding challenges kept in memory; the oldest is dropped beyond this. */
export const DEFAULT_MAX_CHALLENGES = 100_000;

export interface AuthConfig {
  readonly challengeTtlSeconds: number;
  readonly tokenTtlSeconds: number;
  readonly audience: string;
  readonly hmacClockSkewSeconds: number;
  /** Actor id → HMAC key (the UTF-8 bytes of the configured secret text). */
  readonly hmacSecrets: ReadonlyMap<string, Buffer>;
  /** base64url SHA-256 of a static MCP token → actor id. The tokens themselves are not kept. */
  readonly staticMcpTokenHashes: ReadonlyMap<string, string>;
  readonly operatorActors: ReadonlySet<string>;
  /**
   * base64url SHA-256 of the metrics token: a bearer token valid on GET /metrics only (for a
   * Prometheus scraper, which can neither sign HMAC requests nor renew 15-minute tokens). Undefined:
   * only operator actors read /metrics (decisions.md T10).
   */
  readonly metricsTokenHash: string | undefined;
  readonly maxChallenges: number;
  /**
   * One line for the integrator to print when a bootstrap operator credential was generated on this
   * start (it names the file, never the secret); undefined otherwise.
   */
  readonly bootstrapNotice: string | undefined;
}

export type Env = Readonly<Record<string, string | undefined>>;

function integerSetting(env: Env, name: string, fallback: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!/^[0-9]+$/.test(raw)) throw new ConfigError(name, `must be a whole number of seconds from 1 to ${max}`);
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 1 || value > max) {
    throw new ConfigError(name, `must be a whole number of seconds from 1 to ${max}`);
  }
  return value;
}

function checkActorId(setting: string, actorId: string, where: string): void {
  if (!isIdentifier(actorId)) {
    throw new ConfigError(setting, `${where}: an actor id must be 1 to ${MAX_IDENTIFIER_LENGTH} characters without control characters`);
  }
  if (actorId === SYSTEM_ID) throw new ConfigError(setting, `${where}: actor id "${SYSTEM_ID}" is reserved for the service`);
}

function checkSecret(setting: string, secret: string, where: string, what: string): void {
  if (!isValidSecretText(secret)) {
    throw new ConfigError(
      setting,
      `${where}: the ${what} must be ${MIN_SECRET_LENGTH} to ${MAX_SECRET_LENGTH} visible ASCII characters (no spaces)`,
    );
  }
}

/** `a=b,c=d` → [[a,b],[c,d]], split at the first `=` of each entry. */
function parsePairs(setting: string, raw: string, leftName: string, rightName: string): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  raw.split(",").forEach((entry, index) => {
    const where = `entry ${index + 1}`;
    const eq = entry.indexOf("=");
    if (eq <= 0 || eq === entry.length - 1) {
      throw new ConfigError(setting, `${where} must have the form ${leftName}=${rightName}, entries separated by commas`);
    }
    pairs.push([entry.slice(0, eq), entry.slice(eq + 1)]);
  });
  return pairs;
}

function readJsonObjectFile(setting: string, filePath: string): Array<[string, string]> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(filePath, "utf8"));
  } catch (error) {
    const reason = error instanceof SyntaxError ? "is not valid JSON" : "cannot be read";
    throw new ConfigError(setting, `file ${filePath} ${reason}`);
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new ConfigError(setting, `file ${filePath} must hold one JSON object of string members`);
  }
  const pairs: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(parsed)) {
    if (typeof value !== "string") {
      throw new ConfigError(setting, `file ${filePath} must hold one JSON object of string members`);
    }
    pairs.push([name, value]);
  }
  return pairs;
}

/** Reads `inline` (`left=right,...`) or `file` (JSON object left → right); setting both is an error. */
function exclusiveSource(
  env: Env,
  inline: string,
  file: string,
  leftName: string,
  rightName: string,
): { setting: string; pairs: Array<[string, string]> } | undefined {
  const inlineValue = env[inline];
  const fileValue = env[file];
  const hasInline = inlineValue !== undefined && inlineValue !== "";
  const hasFile = fileValue !== undefined && fileValue !== "";
  if (hasInline && hasFile) throw new ConfigError(inline, `set either ${inline} or ${file}, not both`);
  if (hasInline) return { setting: inline, pairs: parsePairs(inline, inlineValue, leftName, rightName) };
  if (hasFile) return { setting: file, pairs: readJsonObjectFile(file, fileValue) };
  return undefined;
}

function loadHmacSecrets(env: Env): Map<string, string> {
  const secrets = new Map<string, string>();
  const source = exclusiveSource(env, "SERVICE_HMAC_SECRETS", "SERVICE_HMAC_SECRETS_FILE", "actor", "secret");
  if (source === undefined) return secrets;
  source.pairs.forEach(([actorId, secret], index) => {
    const where = source.setting.endsWith("_FILE") ? `actor "${actorId}"` : `entry ${index + 1}`;
    checkActorId(source.setting, actorId, where);
    checkSecret(source.setting, secret, where, "secret");
    if (secrets.has(actorId)) throw new ConfigError(source.setting, `actor "${actorId}" is listed twice`);
    secrets.set(actorId, secret);
  });
  return secrets;
}

function loadStaticTokens(env: Env, hmacSecrets: ReadonlyMap<string, string>): Map<string, string> {
  const byHash = new Map<string, string>();
  const source = exclusiveSource(env, "MCP_STATIC_TOKENS", "MCP_STATIC_TOKENS_FILE", "token", "actor");
  if (source === undefined) return byHash;
  const secretValues = new Set(hmacSecrets.values());
  source.pairs.forEach(([token, actorId], index) => {
    const where = `entry ${index + 1}`;
    checkSecret(source.setting, token, where, "token");
    checkActorId(source.setting, actorId, where);
    // Spec §5.3: a static token differs from the HMAC secret (one leak must not give both).
    if (secretValues.has(token)) throw new ConfigError(source.setting, `${where}: the token equals an HMAC secret`);
    const hash = hashTokenText(token);
    if (byHash.has(hash)) throw new ConfigError(source.setting, `${where}: the token is listed twice`);
    byHash.set(hash, actorId);
  });
  return byHash;
}

function loadOperators(env: Env): Set<string> {
  const operators = new Set<string>();
  const raw = env["SERVICE_OPERATOR_ACTORS"];
  if (raw === undefined || raw.trim() === "") return operators;
  raw.split(",").forEach((item, index) => {
    const actorId = item.trim();
    checkActorId("SERVICE_OPERATOR_ACTORS", actorId, `item ${index + 1}`);
    if (operators.has(actorId)) throw new ConfigError("SERVICE_OPERATOR_ACTORS", `actor "${actorId}" is listed twice`);
    operators.add(actorId);
  });
  return operators;
}

/**
 * METRICS_TOKEN, or METRICS_TOKEN_FILE: a file holding only the token (a trailing newline is
 * ignored), the same file a Prometheus scrape job names as `credentials_file`.
 */
function loadMetricsToken(env: Env, hmacSecrets: ReadonlyMap<string, string>, staticTokenHashes: ReadonlyMap<string, string>): string | undefined {
  const inline = env["METRICS_TOKEN"];
  const file = env["METRICS_TOKEN_FILE"];
  const hasInline = inline !== undefined && inline !== "";
  const hasFile = file !== undefined && file !== "";
  if (hasInline && hasFile) throw new ConfigError("METRICS_TOKEN", "set either METRICS_TOKEN or METRICS_TOKEN_FILE, not both");
  if (!hasInline && !hasFile) return undefined;
  const setting = hasInline ? "METRICS_TOKEN" : "METRICS_TOKEN_FILE";
  let token: string;
  if (hasInline) token = inline;
  else {
    try {
      token = fs.readFileSync(file as string, "utf8").replace(/\r?\n$/, "");
    } catch {
      throw new ConfigError(setting, `file ${file as string} cannot be read`);
    }
  }
  checkSecret(setting, token, hasInline ? "the value" : `file ${file as string}`, "token");
  // One leaked credential must not open more than one door.
  if (new Set(hmacSecrets.values()).has(token)) throw new ConfigError(setting, "the metrics token equals an HMAC secret");
  const hash = hashTokenText(token);
  if (staticTokenHashes.has(hash)) throw new ConfigError(setting, "the metrics token equals a static MCP token");
  return hash;
}

/**
 * Reads and validates every authentication setting. `dataDir` is the service's DATA_DIR: when no
 * HMAC secret is configured at all and it has no `operator.secret`, a bootstrap operator credential
 * is generated there (see operator-bootstrap.ts); an existing `operator.secret` is always loaded.
 */
export function loadAuthConfig(env: Env, dataDir: string, options: { maxChallenges?: number } = {}): AuthConfig {
  const challengeTtlSeconds = integerSetting(env, "AUTH_CHALLENGE_TTL", DEFAULT_CHALLENGE_TTL_SECONDS, MAX_CHALLENGE_TTL_SECONDS);
  const tokenTtlSeconds = integerSetting(env, "AUTH_TOKEN_TTL", DEFAULT_TOKEN_TTL_SECONDS, MAX_TOKEN_TTL_SECONDS);
  const hmacClockSkewSeconds = integerSetting(env, "HMAC_CLOCK_SKEW_SECONDS", DEFAULT_HMAC_CLOCK_SKEW_SECONDS, MAX_HMAC_CLOCK_SKEW_SECONDS);

  const audienceRaw = env["AUTH_AUDIENCE"];
  const audience = audienceRaw === undefined || audienceRaw === "" ? DEFAULT_AUDIENCE : audienceRaw;
  if (audience.length > 128 || !/^[\x21-\x7E]+$/.test(audience)) {
    throw new ConfigError("AUTH_AUDIENCE", "must be 1 to 128 visible ASCII characters (no spaces)");
  }

  const secrets = loadHmacSecrets(env);
  const operatorActors = loadOperators(env);
  const bootstrap = loadOrCreateBootstrapOperator(dataDir, { generate: secrets.size === 0 });
  if (bootstrap !== undefined) {
    if (secrets.has(bootstrap.actorId)) {
      throw new ConfigError(
        "SERVICE_HMAC_SECRETS",
        `actor "${bootstrap.actorId}" is also defined by ${bootstrap.filePath}; remove one of them`,
      );
    }
    secrets.set(bootstrap.actorId, bootstrap.secret);
    operatorActors.add(bootstrap.actorId);
  }
  const staticMcpTokenHashes = loadStaticTokens(env, secrets);
  const metricsTokenHash = loadMetricsToken(env, secrets, staticMcpTokenHashes);

  const hmacSecrets = new Map<string, Buffer>();
  for (const [actorId, secret] of secrets) hmacSecrets.set(actorId, Buffer.from(secret, "utf8"));

  const maxChallenges = options.maxChallenges ?? DEFAULT_MAX_CHALLENGES;
  if (!Number.isSafeInteger(maxChallenges) || maxChallenges < 1) throw new RangeError("maxChallenges must be a positive integer");

  return {
    challengeTtlSeconds,
    tokenTtlSeconds,
    audience,
    hmacClockSkewSeconds,
    hmacSecrets,
    staticMcpTokenHashes,
    operatorActors,
    metricsTokenHash,
    maxChallenges,
    bootstrapNotice: bootstrap?.notice,
  };
}
