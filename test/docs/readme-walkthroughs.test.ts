/**
 * The README's walkthroughs cannot rot (issue 25 §4): this test takes the two ```sh blocks marked
 * `<!-- walkthrough: … -->` out of README.md and runs them, as they are printed, in bash against a
 * real service: the real CLI for `npx market-service`, real curl, real files (each curl reply on a
 * line of its own). Two substitutions
 * only: the service listens on a free port instead of 8080, and `sleep N` (waiting for the
 * auction's closesAt) moves the service's clock N seconds past the present instead of sleeping.
 * Then the service's own state is checked: the direct claim committed, the auction resolved at the
 * second price, each bidder saw its own outcome, the winner confirmed.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import type { Readable, Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Harness } from "../http-api/support/harness.js";
import { CLI_JS } from "../process/support.js";

const ROOT = path.resolve(import.meta.dirname, "../..");

let h: Harness;
let work: string;

/** The blocks after `<!-- walkthrough: <name> … -->`, in README order. */
function walkthroughs(): Map<string, string> {
  const readme = readFileSync(path.join(ROOT, "README.md"), "utf8");
  const blocks = new Map<string, string>();
  for (const match of readme.matchAll(/<!-- walkthrough: ([a-z-]+)[^\n]*-->\n```sh\n([\s\S]*?)```/g)) blocks.set(match[1] as string, match[2] as string);
  return blocks;
}

/**
 * The JSON documents curl printed, one a line: the walkthroughs' `curl -w '\n'` ends each reply with a
 * newline (the service's replies end without one), so a person reads them apart. A line that is not
 * one whole document (two replies run together) fails the parse.
 */
function jsonLines(text: string): unknown[] {
  return text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as unknown);
}

/**
 * Runs `script` in bash in `work`. `npx market-service` is this repository's CLI as npx runs it (the
 * package's bin, dist/gateway/cli/cli.js); `sleep` asks the test (over fd 3, answer on fd 4) to move the
 * service's clock instead of waiting.
 */
function runBash(script: string, onSleep: (seconds: number) => void): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const prelude = [
    "set -eu",
    `npx() { if [ "$1" = market-service ]; then shift; node "${CLI_JS}" "$@"; else command npx "$@"; fi; }`,
    'sleep() { echo "$1" >&3; read -r _ <&4; }',
  ].join("\n");
  return new Promise((resolve) => {
    const child = spawn("bash", ["--noprofile", "--norc", "-c", `${prelude}\n${script}`], {
      cwd: work,
      // The Node running this test first on PATH: the walkthrough calls `node` itself.
      env: { PATH: `${path.dirname(process.execPath)}:${process.env["PATH"] ?? "/usr/bin:/bin"}`, HOME: work, MARKET_SERVICE_URL: h.url },
      stdio: ["ignore", "pipe", "pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    const requests = child.stdio[3] as Readable;
    const answers = child.stdio[4] as Writable;
    let pending = "";
    requests.on("data", (chunk: Buffer) => {
      pending += chunk.toString("utf8");
      for (let newline = pending.indexOf("\n"); newline >= 0; newline = pending.indexOf("\n")) {
        onSleep(Number(pending.slice(0, newline)));
        pending = pending.slice(newline + 1);
        answers.write("done\n");
      }
    });
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), "readme-"));
  // As after `npm start` in this folder: data in ./data, a bootstrap operator in data/operator.secret
  // (no configured HMAC secrets or operators), the clock at the present (curl and the CLI use it).
  mkdirSync(path.join(work, "data"));
  h = await Harness.start({ dataDir: path.join(work, "data"), startMs: Date.now(), env: { SERVICE_HMAC_SECRETS: undefined, SERVICE_OPERATOR_ACTORS: undefined, MCP_STATIC_TOKENS: undefined } });
});

afterAll(async () => {
  await h?.close();
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

describe("README walkthroughs", () => {
  it("has the direct-claim and the sealed-auction walkthrough", () => {
    expect([...walkthroughs().keys()]).toEqual(["direct-claim", "sealed-auction"]);
  });

  it("runs both as printed against a real service, and the service did what the README says", { timeout: 180_000 }, async () => {
    const blocks = walkthroughs();
    const script = [...blocks.values()].join("\n").replaceAll("localhost:8080", h.url.replace(/^http:\/\//, ""));
    const sleeps: number[] = [];
    const ran = await runBash(script, (seconds) => {
      sleeps.push(seconds);
      // "Wait N seconds" from now: the clock moves to the present plus N (closesAt was computed
      // from the present by the walkthrough), and the shards see it.
      h.advance(Date.now() + seconds * 1000 - h.clock.nowMs());
    });
    expect(ran.code, ran.stderr).toBe(0);
    expect(sleeps).toEqual([10]);

    const replies = jsonLines(ran.stdout) as Array<Record<string, any>>;
    for (const reply of replies) expect(reply["error"], JSON.stringify(reply)).toBeUndefined();
    // Identity files where the README says, private.
    for (const who of ["alice", "bob", "carol"]) expect(statSync(path.join(work, "identities", `${who}.identity.json`)).mode & 0o777).toBe(0o600);

    // Direct claim: bob holds table-7's only seat; the record shows the three commands.
    const record = replies.find((reply) => Array.isArray(reply["commands"]) && reply["market"]?.id === "table-7");
    expect(record?.["commands"].map((c: { type: string; status: string }) => `${c.type} ${c.status}`)).toEqual([
      "market.create_draft accepted",
      "market.publish accepted",
      "direct_claim.submit accepted",
    ]);
    expect(record?.["commitments"]).toMatchObject([{ participantPrincipalId: "bob", state: "committed" }]);

    // Auction: each bidder's my-outcome, as printed after the close.
    const outcomes = replies.filter((reply) => reply["marketId"] === "lamp-42" && "bidReceipts" in reply && "principalId" in reply);
    expect(outcomes.map((o) => o["principalId"])).toEqual(["carol", "bob"]);
    expect(outcomes[0]).toMatchObject({ principalId: "carol", commitments: [] });
    expect(outcomes[0]?.["bidReceipts"]).toHaveLength(1);
    expect(outcomes[1]?.["commitments"]).toMatchObject([
      { participantPrincipalId: "bob", state: "awaiting_confirmations", terms: { pricing: { rule: "second_price", amountMinor: 1800, currency: "EUR" } } },
    ]);
    // No amount in any outcome or bid reply before the record is the creator's to read.
    for (const outcome of outcomes) expect(JSON.stringify(outcome["bidReceipts"])).not.toMatch(/2500|1800/);
    // The confirmation: the last reply, bob's commitment committed.
    expect(replies.at(-1)?.["commitments"]).toMatchObject([{ participantPrincipalId: "bob", state: "committed" }]);
    const market = await h.get("/v1/markets/lamp-42", { kind: "hmac", actorId: "operator", secret: JSON.parse(readFileSync(path.join(work, "data", "operator.secret"), "utf8")).secret, timestampSeconds: h.nowSeconds() });
    expect(market.body).toMatchObject({ state: "closed", mechanismState: { bidCount: 2, resolution: "winner_selected" } });
  });
});
