/**
 * The audit signing key in the running service (gateway/audit-signing-key.ts, decisions.md I32):
 * real key files written by openssl in temp dirs, the real service on a loopback port, the real CLI
 * as a process. Quick start, a configured key, every refusal, rotation through the CLI, and the
 * published keys checked with @noble/ed25519.
 */
import { execFile, execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { createPrivateKey } from "node:crypto";
import { tmpdir } from "node:os";
import * as path from "node:path";
import * as ed from "@noble/ed25519";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError } from "../../gateway/auth/config-error.js";
import { startService, type RunningService } from "../../gateway/service.js";
import { checkKeyHistory, keyIdOf } from "@market-service/client/audit";
import { rawEd25519PublicKey } from "../../engine/audit/signing/audit-signer.js";
import { CLI_JS, MAIN_JS, listeningUrl, spawnCaptured } from "../process/support.js";
import { killOnExit } from "../../scripts/kill-on-exit.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const SECRET = "operator-secret-0123456789-abcdefghijklmnop";

let work: string;
let counter = 0;

beforeAll(() => {
  work = mkdtempSync(path.join(tmpdir(), "audit-keys-"));
});

afterAll(() => {
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

/** A fresh directory under the test's work directory. */
function freshDir(name: string): string {
  counter += 1;
  const dir = path.join(work, `${name}-${counter}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** `openssl genpkey -algorithm <algorithm> -out <file>`, then chmod. */
function opensslKey(file: string, algorithm = "ed25519", mode = 0o600): string {
  execFileSync("openssl", ["genpkey", "-algorithm", algorithm, "-out", file]);
  chmodSync(file, mode);
  return file;
}

function keyIdOfFile(file: string): string {
  return keyIdOf(rawEd25519PublicKey(createPrivateKey(readFileSync(file))));
}

interface Started {
  service: RunningService;
  lines: Array<{ level: string; msg: string; fields: Record<string, unknown> }>;
}

async function start(dataDir: string, env: Record<string, string> = {}): Promise<Started> {
  const lines: Started["lines"] = [];
  const service = await startService({
    env: { DATA_DIR: dataDir, PORT: "0", SHARDS: "1", SERVICE_HMAC_SECRETS: `operator=${SECRET}`, SERVICE_OPERATOR_ACTORS: "operator", ...env },
    log: (level, msg, fields) => lines.push({ level, msg, fields: { ...fields } }),
    onFatal: (message) => {
      throw new Error(message);
    },
  });
  return { service, lines };
}

/** The start is refused with a ConfigError whose message matches. */
async function refused(dataDir: string, env: Record<string, string>, message: RegExp): Promise<void> {
  const error = await startService({ env: { DATA_DIR: dataDir, PORT: "0", SHARDS: "1", SERVICE_HMAC_SECRETS: `operator=${SECRET}`, ...env }, log: () => undefined }).then(
    async (service) => {
      await service.close();
      return undefined;
    },
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ConfigError);
  expect((error as Error).message).toMatch(message);
}

interface PublishedKey {
  keyId: string;
  publicKey: string;
  activatedAtMs: number;
  endorsement: string | null;
}

async function publishedKeys(url: string): Promise<{ keys: PublishedKey[] }> {
  const response = await fetch(`${url}/v1/audit/keys`);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/application\/json/);
  return (await response.json()) as { keys: PublishedKey[] };
}

/** A message signed by the service's signer verifies with noble under the published current key. */
function signsAsPublished(service: RunningService, published: PublishedKey): void {
  const message = new TextEncoder().encode(`head of ${published.keyId}`);
  expect(ed.verify(service.auditSigner.sign(message), message, Buffer.from(published.publicKey, "base64url"), { zip215: false })).toBe(true);
}

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** `market-service <args>` as a process, in `cwd`. */
function cli(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI_JS, ...args], { cwd: options.cwd ?? work, env: { ...process.env, ...options.env }, timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : -1, stdout, stderr }),
    );
  });
}

/** Every encoding of the private key's bytes that could leak: the seed and the PKCS#8 DER. */
function privateKeyMaterial(pemFile: string): string[] {
  const der = createPrivateKey(readFileSync(pemFile)).export({ format: "der", type: "pkcs8" });
  const seed = der.subarray(der.length - 32);
  const pemBody = readFileSync(pemFile, "utf8").replace(/-----[A-Z ]+-----/g, "").replace(/\s+/g, "");
  return [pemBody, der.toString("base64"), ...(["hex", "base64", "base64url"] as const).map((encoding) => seed.toString(encoding))];
}

describe("quick start: no AUDIT_SIGNING_KEY_FILE", () => {
  it("generates DATA_DIR/audit-signing-key.pem (0600) once, reuses it, warns at every start, publishes it", async () => {
    const dataDir = path.join(freshDir("quick"), "data");
    const keyFile = path.join(dataDir, "audit-signing-key.pem");
    const first = await start(dataDir);
    let firstKeyId: string;
    try {
      expect(existsSync(keyFile)).toBe(true);
      expect(statSync(keyFile).mode & 0o777).toBe(0o600);
      expect(existsSync(`${keyFile}.tmp`)).toBe(false);
      firstKeyId = keyIdOfFile(keyFile);
      expect(first.service.auditSigner.keyId).toBe(firstKeyId);
      const warnings = first.lines.filter((line) => line.level === "warn" && line.msg.includes("AUDIT_SIGNING_KEY_FILE is not set"));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]?.msg).toContain("whoever holds the data directory can forge signed heads");
      expect(warnings[0]?.msg).toContain(keyFile);
      const body = await publishedKeys(first.service.url);
      expect(body).toEqual({ keys: [{ keyId: firstKeyId, publicKey: expect.any(String), activatedAtMs: 0, endorsement: null }] });
      signsAsPublished(first.service, body.keys[0] as PublishedKey);
    } finally {
      await first.service.close();
    }
    const pem = readFileSync(keyFile, "utf8");
    expect(pem).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    const second = await start(dataDir);
    try {
      expect(second.service.auditSigner.keyId).toBe(firstKeyId);
      expect(readFileSync(keyFile, "utf8")).toBe(pem);
      expect(second.lines.filter((line) => line.level === "warn" && line.msg.includes("whoever holds the data directory can forge signed heads"))).toHaveLength(1);
      const logged = JSON.stringify([...first.lines, ...second.lines]);
      for (const material of privateKeyMaterial(keyFile)) expect(logged).not.toContain(material);
    } finally {
      await second.service.close();
    }
  });

  it("is a file git ignores in the repository's data/", () => {
    // `git check-ignore` exits 0 when the path is ignored.
    expect(() => execFileSync("git", ["check-ignore", "-q", "data/audit-signing-key.pem"], { cwd: ROOT })).not.toThrow();
  });

  it("moves to a key outside DATA_DIR by the documented fix: rotate from the quick-start key, then set both files", async () => {
    const dataDir = path.join(freshDir("quick-fix"), "data");
    await (await start(dataDir)).service.close();
    const quickKey = path.join(dataDir, "audit-signing-key.pem");
    const keys = freshDir("quick-fix-keys");
    const rotated = await cli(["signing-key", "rotate", "--key", quickKey, "--new", path.join(keys, "key.pem"), "--history", path.join(keys, "history.json")]);
    expect(rotated.stderr).toBe("");
    expect(rotated.code).toBe(0);
    const { service, lines } = await start(dataDir, { AUDIT_SIGNING_KEY_FILE: path.join(keys, "key.pem"), AUDIT_KEY_HISTORY_FILE: path.join(keys, "history.json") });
    try {
      expect(lines.filter((line) => line.level === "warn")).toEqual([]);
      const body = await publishedKeys(service.url);
      expect(body.keys.map((key) => key.keyId)).toEqual([keyIdOfFile(quickKey), service.auditSigner.keyId]);
    } finally {
      await service.close();
    }
  });
});

describe("the service's own log output (pino, a real process)", () => {
  it("holds the quick-start warning and no private key material, at debug level, through a request and a stop", async () => {
    const dataDir = path.join(freshDir("process-log"), "data");
    const spawned = spawnCaptured(process.execPath, [MAIN_JS], {
      env: { ...process.env, DATA_DIR: dataDir, HOST: "127.0.0.1", PORT: "0", SHARDS: "1", LOG_LEVEL: "debug" },
    });
    killOnExit(spawned.child);
    const url = await listeningUrl(spawned);
    const published = await publishedKeys(url);
    const openapi = await (await fetch(`${url}/openapi.json`)).text();
    spawned.child.kill("SIGTERM");
    expect((await spawned.exited).code).toBe(0);
    const output = spawned.output();
    const keyFile = path.join(dataDir, "audit-signing-key.pem");
    expect(published.keys[0]?.keyId).toBe(keyIdOfFile(keyFile));
    const warning = output.split("\n").find((line) => line.includes("whoever holds the data directory can forge signed heads"));
    expect(warning).toBeDefined();
    expect(JSON.parse(warning as string)).toMatchObject({ level: "warn", keyFile });
    expect(output).toContain(`"keyId":"${keyIdOfFile(keyFile)}"`);
    for (const material of privateKeyMaterial(keyFile)) {
      expect(output).not.toContain(material);
      expect(JSON.stringify(published) + openapi).not.toContain(material);
    }
  });
});

describe("AUDIT_SIGNING_KEY_FILE", () => {
  it("signs with a configured key outside DATA_DIR, without a warning and without creating a quick-start key", async () => {
    const dataDir = path.join(freshDir("configured"), "data");
    const keyFile = opensslKey(path.join(freshDir("configured-keys"), "audit.pem"));
    const { service, lines } = await start(dataDir, { AUDIT_SIGNING_KEY_FILE: keyFile });
    try {
      expect(service.auditSigner.keyId).toBe(keyIdOfFile(keyFile));
      expect(lines.filter((line) => line.level === "warn")).toEqual([]);
      expect(lines.find((line) => line.msg === "audit signing key")?.fields).toEqual({ keyId: keyIdOfFile(keyFile), keyFile, historyKeys: 1 });
      expect(existsSync(path.join(dataDir, "audit-signing-key.pem"))).toBe(false);
      const body = await publishedKeys(service.url);
      expect(body.keys).toHaveLength(1);
      expect(body.keys[0]?.keyId).toBe(keyIdOfFile(keyFile));
      signsAsPublished(service, body.keys[0] as PublishedKey);
      // The route follows the router's rules: another method is the spec's 405 error body.
      const post = await fetch(`${service.url}/v1/audit/keys`, { method: "POST", body: "{}" });
      expect(post.status).toBe(405);
      expect(await post.json()).toEqual({ error: { code: "method_not_allowed", message: "method POST is not allowed here" } });
      const logged = JSON.stringify(lines);
      for (const material of privateKeyMaterial(keyFile)) expect(logged).not.toContain(material);
    } finally {
      await service.close();
    }
  });

  describe("refuses to start", () => {
    let dataDir: string;
    let keys: string;
    beforeAll(() => {
      dataDir = path.join(freshDir("refusals"), "data");
      keys = freshDir("refusal-keys");
    });

    it("when the file is missing", async () => {
      const missing = path.join(keys, "missing.pem");
      await refused(dataDir, { AUDIT_SIGNING_KEY_FILE: missing }, new RegExp(`^AUDIT_SIGNING_KEY_FILE: ${missing} does not exist$`));
    });

    it("when it is not an Ed25519 private key: an Ed448 key, a public key, text, a directory", async () => {
      const ed448 = opensslKey(path.join(keys, "ed448.pem"), "ed448");
      await refused(dataDir, { AUDIT_SIGNING_KEY_FILE: ed448 }, new RegExp(`^AUDIT_SIGNING_KEY_FILE: ${ed448} holds a ed448 key, not an Ed25519 key$`));
      const publicPem = path.join(keys, "public.pem");
      execFileSync("openssl", ["pkey", "-in", opensslKey(path.join(keys, "for-public.pem")), "-pubout", "-out", publicPem]);
      chmodSync(publicPem, 0o600);
      await refused(dataDir, { AUDIT_SIGNING_KEY_FILE: publicPem }, new RegExp(`^AUDIT_SIGNING_KEY_FILE: ${publicPem} is not a PEM private key`));
      const text = path.join(keys, "text.pem");
      writeFileSync(text, "not a key\n", { mode: 0o600 });
      await refused(dataDir, { AUDIT_SIGNING_KEY_FILE: text }, new RegExp(`^AUDIT_SIGNING_KEY_FILE: ${text} is not a PEM private key`));
      await refused(dataDir, { AUDIT_SIGNING_KEY_FILE: keys }, new RegExp(`^AUDIT_SIGNING_KEY_FILE: ${keys} is not a regular file$`));
    });

    it("when group or others may read it (mode 0644)", async () => {
      const open = opensslKey(path.join(keys, "open.pem"), "ed25519", 0o644);
      await refused(dataDir, { AUDIT_SIGNING_KEY_FILE: open }, new RegExp(`^AUDIT_SIGNING_KEY_FILE: ${open} must not be accessible by group or others \\(mode 0644\\): chmod 600 it$`));
    });

    it("when it lies inside DATA_DIR, directly or through a symbolic link", async () => {
      mkdirSync(dataDir, { recursive: true });
      const inside = opensslKey(path.join(dataDir, "my-key.pem"));
      await refused(dataDir, { AUDIT_SIGNING_KEY_FILE: inside }, new RegExp(`^AUDIT_SIGNING_KEY_FILE: ${inside} lies inside DATA_DIR`));
      const link = path.join(keys, "link-to-inside.pem");
      symlinkSync(inside, link);
      await refused(dataDir, { AUDIT_SIGNING_KEY_FILE: link }, new RegExp(`^AUDIT_SIGNING_KEY_FILE: ${link} lies inside DATA_DIR`));
      // DATA_DIR itself named through a link: real paths are compared.
      const dataLink = path.join(keys, "data-link");
      symlinkSync(dataDir, dataLink);
      await refused(dataLink, { AUDIT_SIGNING_KEY_FILE: inside }, /lies inside DATA_DIR/);
    });

    it("when the key history's chain does not verify, or its last key is not the configured key", async () => {
      const a = opensslKey(path.join(keys, "hist-a.pem"));
      const b = path.join(keys, "hist-b.pem");
      const history = path.join(keys, "history.json");
      expect((await cli(["signing-key", "rotate", "--key", a, "--new", b, "--history", history])).code).toBe(0);
      await refused(dataDir, { AUDIT_SIGNING_KEY_FILE: a, AUDIT_KEY_HISTORY_FILE: history }, new RegExp(`^AUDIT_KEY_HISTORY_FILE: ${history}: its last key is ${keyIdOfFile(b)}, but the signing key ${a} is ${keyIdOfFile(a)}`));
      const broken = path.join(keys, "broken.json");
      const parsed = JSON.parse(readFileSync(history, "utf8")) as { keys: PublishedKey[] };
      (parsed.keys[1] as PublishedKey).activatedAtMs += 1;
      writeFileSync(broken, JSON.stringify(parsed));
      await refused(dataDir, { AUDIT_SIGNING_KEY_FILE: b, AUDIT_KEY_HISTORY_FILE: broken }, new RegExp(`^AUDIT_KEY_HISTORY_FILE: ${broken} is not a valid key history: keys\\[1\\]\\.endorsement does not verify under keys\\[0\\]'s public key$`));
      const notJson = path.join(keys, "not.json");
      writeFileSync(notJson, "{");
      await refused(dataDir, { AUDIT_SIGNING_KEY_FILE: b, AUDIT_KEY_HISTORY_FILE: notJson }, new RegExp(`^AUDIT_KEY_HISTORY_FILE: ${notJson} is not valid JSON$`));
      await refused(dataDir, { AUDIT_SIGNING_KEY_FILE: b, AUDIT_KEY_HISTORY_FILE: path.join(keys, "none.json") }, /^AUDIT_KEY_HISTORY_FILE: .*none\.json does not exist$/);
    });

    it("as a process: exit status 2 and one line naming the variable and the path", async () => {
      const open = opensslKey(path.join(keys, "process-open.pem"), "ed25519", 0o640);
      const ran = await new Promise<Ran>((resolve) => {
        execFile(process.execPath, [MAIN_JS], { env: { ...process.env, DATA_DIR: dataDir, PORT: "0", SHARDS: "1", AUDIT_SIGNING_KEY_FILE: open }, timeout: 60_000 }, (error, stdout, stderr) =>
          resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : -1, stdout, stderr }),
        );
      });
      expect(ran.code).toBe(2);
      expect(ran.stderr).toBe(`market-service: configuration error: AUDIT_SIGNING_KEY_FILE: ${open} must not be accessible by group or others (mode 0640): chmod 600 it\n`);
      for (const material of privateKeyMaterial(open)) expect(ran.stdout + ran.stderr).not.toContain(material);
    });
  });
});

describe("rotation with the CLI", () => {
  it("rotates twice, then the service signs with the newest key and publishes a chain that verifies from the first key", async () => {
    const keys = freshDir("rotation");
    const dataDir = path.join(freshDir("rotation-data"), "data");
    const a = opensslKey(path.join(keys, "a.pem"));
    const b = opensslKey(path.join(keys, "b.pem"));
    const c = path.join(keys, "c.pem"); // generated by the CLI
    const history = path.join(keys, "history.json");
    const first = await cli(["signing-key", "rotate", "--key", a, "--new", b, "--history", history]);
    expect(first).toMatchObject({ code: 0, stderr: "" });
    expect(first.stdout).toContain(`created ${history}: 2 keys, chain verified; ${keyIdOfFile(a)} endorses ${keyIdOfFile(b)}`);
    // Only the history's current key may endorse the next.
    const stale = await cli(["signing-key", "rotate", "--key", a, "--new", c, "--history", history]);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toBe(`signing-key rotate: --key ${a} is key ${keyIdOfFile(a)}, but the current key of ${history} is ${keyIdOfFile(b)}: only the current key can endorse the next\n`);
    expect(existsSync(c)).toBe(false);
    const second = await cli(["signing-key", "rotate", "--key", b, "--new", c, "--history", history]);
    expect(second).toMatchObject({ code: 0, stderr: "" });
    expect(second.stdout).toContain(`generated new key ${keyIdOfFile(c)}`);
    expect(statSync(c).mode & 0o777).toBe(0o600);

    const { service } = await start(dataDir, { AUDIT_SIGNING_KEY_FILE: c, AUDIT_KEY_HISTORY_FILE: history });
    try {
      expect(service.auditSigner.keyId).toBe(keyIdOfFile(c));
      const body = await publishedKeys(service.url);
      expect(body.keys.map((key) => key.keyId)).toEqual([a, b, c].map(keyIdOfFile));
      expect(body.keys[0]?.endorsement).toBeNull();
      expect(checkKeyHistory({ version: 1, ...body }, { trustedKeyId: keyIdOfFile(a) })).toMatchObject({ ok: true });
      signsAsPublished(service, body.keys[2] as PublishedKey);
      // The CLI shows what the endpoint publishes, from the same settings.
      const shown = await cli(["signing-key", "show", "--json"], { env: { DATA_DIR: dataDir, AUDIT_SIGNING_KEY_FILE: c, AUDIT_KEY_HISTORY_FILE: history } });
      expect(shown.code).toBe(0);
      expect(JSON.parse(shown.stdout)).toEqual(body);
      const text = await cli(["signing-key", "show", "--history", history]);
      expect(text.code).toBe(0);
      for (const key of body.keys) expect(text.stdout).toContain(`${key.keyId}  ${key.publicKey}`);
      const outputs = [first, stale, second, shown, text].map((ran) => ran.stdout + ran.stderr).join("\n");
      for (const file of [a, b, c]) for (const material of privateKeyMaterial(file)) expect(outputs).not.toContain(material);
    } finally {
      await service.close();
    }
  });

  it("show refuses a history whose chain does not verify, and a --key that is not its current key", async () => {
    const keys = freshDir("show");
    const a = opensslKey(path.join(keys, "a.pem"));
    const history = path.join(keys, "history.json");
    expect((await cli(["signing-key", "rotate", "--key", a, "--new", path.join(keys, "b.pem"), "--history", history])).code).toBe(0);
    const key = await cli(["signing-key", "show", "--key", a, "--history", history]);
    expect(key.code).toBe(1);
    expect(key.stderr).toMatch(/^signing-key show: --key .*a\.pem is key [0-9a-f]{32}, but the current key of .*history\.json is [0-9a-f]{32}\n$/);
    const parsed = JSON.parse(readFileSync(history, "utf8")) as { keys: PublishedKey[] };
    parsed.keys.reverse();
    writeFileSync(history, JSON.stringify(parsed));
    const broken = await cli(["signing-key", "show", "--history", history]);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/^signing-key show: --history: .*history\.json is not a valid key history: keys\[0\]\.endorsement must be null/);
  });
});
