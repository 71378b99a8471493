/**
 * The CLI's `provision` and `token` against a real service and a closed port (issue 25 §4): a
 * service that cannot be reached is named with the cause; re-provisioning an existing identity says
 * what exists; identity files are written 0600 whatever the umask, into a folder git ignores.
 */
import { execFile, execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Harness, OPERATOR_SECRET } from "../http-api/support/harness.js";
import { CLI_JS, REPO_ROOT as ROOT } from "../process/support.js";


let h: Harness;
let work: string;

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `market-service <args>` in `work` under `umask`, as a person would from a shell. */
function cli(args: string[], options: { umask?: string; env?: Record<string, string> } = {}): Promise<Ran> {
  const command = `umask ${options.umask ?? "022"}; exec "$0" "$@"`;
  return new Promise((resolve) => {
    execFile(
      "/bin/sh",
      ["-c", command, process.execPath, CLI_JS, ...args],
      { cwd: work, env: { ...process.env, SERVICE_HMAC_ACTOR: "operator", SERVICE_HMAC_SECRET: OPERATOR_SECRET, MARKET_SERVICE_URL: h.url, ...options.env }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : -1, stdout, stderr }),
    );
  });
}

/** A port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

beforeAll(async () => {
  // HMAC requests are signed with the real time: the service's clock starts there too.
  h = await Harness.start({ startMs: Date.now() });
  work = mkdtempSync(path.join(tmpdir(), "cli-client-"));
});

afterAll(async () => {
  await h?.close();
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

// Each step spawns the CLI: allow for a machine busy with other test files.
describe("provision and token", { timeout: 120_000 }, () => {
  it("writes identities/<principal>.identity.json, mode 0600 even under umask 000, and the token command reads it", async () => {
    const ran = await cli(["provision", "--principal", "alice"], { umask: "000" });
    expect(ran.code, ran.stderr).toBe(0);
    const file = path.join(work, "identities", "alice.identity.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(path.join(work, "identities")).mode & 0o777).toBe(0o700);
    expect(JSON.parse(readFileSync(file, "utf8"))).toMatchObject({ principalId: "alice", actorId: "alice", keyId: "alice-key-1" });
    const token = await cli(["token", "--identity", "identities/alice.identity.json"]);
    expect(token.code, token.stderr).toBe(0);
    expect(token.stdout.trim()).toMatch(/^[A-Za-z0-9_-]{20,}$/);
  });

  it("writes an explicit --out 0600 too, and refuses to overwrite it", async () => {
    const first = await cli(["provision", "--principal", "dora", "--out", "dora.identity.json"], { umask: "000" });
    expect(first.code, first.stderr).toBe(0);
    expect(statSync(path.join(work, "dora.identity.json")).mode & 0o777).toBe(0o600);
    const again = await cli(["provision", "--principal", "dora2", "--out", "dora.identity.json"]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("dora.identity.json exists; refusing to overwrite an identity file");
  });

  it("says what exists when an identity is provisioned again", async () => {
    const same = await cli(["provision", "--principal", "alice", "--out", "alice-again.json"]);
    expect(same.code).toBe(1);
    expect(same.stderr).toContain('principal "alice" already exists with actor "alice" and key "alice-key-1"');
    expect(same.stderr).not.toContain("idempotency_conflict");
    expect(existsSync(path.join(work, "alice-again.json"))).toBe(false);

    const otherActor = await cli(["provision", "--principal", "alice", "--actor", "alice-bot", "--out", "x1.json"]);
    expect(otherActor.stderr).toContain('principal "alice" already exists, with another actor or key than asked');
    const takenActor = await cli(["provision", "--principal", "erin", "--actor", "alice", "--out", "x2.json"]);
    expect(takenActor.stderr).toContain('actor "alice" already exists');
    expect(takenActor.stderr).toContain("choose another --actor");
    const takenKey = await cli(["provision", "--principal", "fred", "--key-id", "alice-key-1", "--out", "x3.json"]);
    expect(takenKey.stderr).toContain('key id "alice-key-1" already belongs to another actor');
    for (const ran of [otherActor, takenActor, takenKey]) expect(ran.code).toBe(1);
  });

  it("names the URL and the cause when the service cannot be reached, after trying for a while (a restart), and exits 1", async () => {
    const port = await closedPort();
    const url = `http://127.0.0.1:${port}`;
    // A refused connection is what a restart looks like: the SDK tries again for 20 s and says so once.
    const [provision, token, nowhere] = await Promise.all([
      cli(["provision", "--principal", "gina", "--url", url]),
      cli(["token", "--identity", "identities/alice.identity.json", "--url", url]),
      cli(["provision", "--principal", "gina", "--url", "http://no-such-host.invalid:8080"]),
    ]);
    const refused = `market-service: cannot reach ${url} (connection refused, ECONNREFUSED): is the service running, and on this port?`;
    expect(provision.code).toBe(1);
    expect(provision.stderr.trim().split("\n")).toEqual([`${refused} — trying again for up to 20 s`, refused]);
    expect(provision.stderr).not.toContain("fetch failed");
    expect(existsSync(path.join(work, "identities", "gina.identity.json"))).toBe(false);
    expect(token.code).toBe(1);
    expect(token.stderr).toContain(`cannot reach ${url} (connection refused, ECONNREFUSED)`);
    expect(nowhere.code).toBe(1);
    // Offline, the resolver may say "try again" instead of "no such host"; a host not found is not retried.
    expect(nowhere.stderr).toMatch(/cannot reach http:\/\/no-such-host\.invalid:8080 \((host not found, ENOTFOUND|host name lookup failed for now, EAI_AGAIN)\)/);
    if (nowhere.stderr.includes("ENOTFOUND")) expect(nowhere.stderr).not.toContain("trying again");
  });

  it("says why a token was refused", async () => {
    const moved = await Harness.start({ startMs: Date.now() });
    try {
      // The identity exists on the first service, not on this one.
      const refused = await cli(["token", "--identity", "identities/alice.identity.json", "--url", moved.url]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`${moved.url} did not accept actor "alice" with key "alice-key-1"`);
    } finally {
      await moved.close();
    }
  });
});

describe("identity files stay out of git", () => {
  it("ignores the default folder and *.identity.json anywhere", () => {
    for (const file of ["identities/alice.identity.json", "identities/anything", "alice.identity.json", "docs/examples/bob.identity.json"]) {
      expect(execFileSync("git", ["check-ignore", "--no-index", file], { cwd: ROOT, encoding: "utf8" }).trim(), file).toBe(file);
    }
  });
});
