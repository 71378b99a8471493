/**
 * Real processes for the process-level tests: the built service (`node dist/gateway/main.js`, or the
 * README's `npm start`), the CLI, and a few acknowledged writes to check that a stop kept them.
 * `npm test` builds `dist/` before vitest runs, so these run what `npm start` runs.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { MarketClient } from "@market-service/client";

export const REPO_ROOT = path.resolve(import.meta.dirname, "../..");
export const MAIN_JS = path.join(REPO_ROOT, "dist/gateway/main.js");
export const CLI_JS = path.join(REPO_ROOT, "dist/gateway/cli/cli.js");
export const OPERATOR = { actorId: "operator", secret: "operator-secret-0123456789-abcdefghijklmnop" };

export function tempDataDir(prefix: string): string {
  return path.join(mkdtempSync(path.join(tmpdir(), `${prefix}-`)), "data");
}

export function serverEnv(dataDir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DATA_DIR: dataDir,
    HOST: "127.0.0.1",
    PORT: "0",
    SHARDS: "2",
    LOG_LEVEL: "info",
    SERVICE_HMAC_SECRETS: `${OPERATOR.actorId}=${OPERATOR.secret}`,
    SERVICE_OPERATOR_ACTORS: OPERATOR.actorId,
    ...extra,
  };
}

export interface Spawned {
  child: ChildProcess;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Spawns `command args` with its output captured; `detached` puts it in a process group of its own. */
export function spawnCaptured(command: string, args: string[], options: { env: NodeJS.ProcessEnv; cwd?: string; detached?: boolean }): Spawned {
  const child = spawn(command, args, { cwd: options.cwd ?? REPO_ROOT, env: options.env, detached: options.detached ?? false, stdio: ["ignore", "pipe", "pipe"] });
  let text = "";
  child.stdout?.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
  child.stderr?.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  return { child, output: () => text, exited };
}

/** Resolves with the service's URL once it logged "listening"; rejects if it exits first or after `timeoutMs`. */
export function listeningUrl(spawned: Spawned, timeoutMs = 60_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => finish(new Error(`not listening after ${timeoutMs} ms:\n${spawned.output()}`)), timeoutMs);
    const check = () => {
      for (const line of spawned.output().split("\n")) {
        if (!line.startsWith("{")) continue;
        try {
          const entry = JSON.parse(line) as { msg?: string; url?: string };
          if (entry.msg === "listening" && typeof entry.url === "string") return finish(undefined, entry.url);
        } catch {
          // a partial line: wait for more
        }
      }
    };
    const onData = () => check();
    const onExit = () => finish(new Error(`exited before listening:\n${spawned.output()}`));
    function finish(error: Error | undefined, url?: string): void {
      clearTimeout(timer);
      spawned.child.stdout?.off("data", onData);
      spawned.child.off("exit", onExit);
      if (error !== undefined) reject(error);
      else resolve(url as string);
    }
    spawned.child.stdout?.on("data", onData);
    spawned.child.once("exit", onExit);
    check();
  });
}

/** Starts the built service directly and waits until it is ready. */
export async function startServer(dataDir: string, extraEnv: Record<string, string> = {}): Promise<Spawned & { url: string }> {
  const spawned = spawnCaptured(process.execPath, [MAIN_JS], { env: serverEnv(dataDir, extraEnv) });
  const url = await listeningUrl(spawned);
  return { ...spawned, url };
}

/**
 * Acknowledged writes of both kinds: an identity (identity log) and a market created and published
 * (a shard's log). Returns what `expectWritesKept` checks after a restart.
 */
export async function acknowledgedWrites(url: string, name: string): Promise<{ marketId: string; principalId: string }> {
  const client = new MarketClient({ baseUrl: url });
  const identity = await client.provisionNewIdentity({ principalId: name }, { credentials: { kind: "hmac", ...OPERATOR } });
  const { accessToken } = await client.signIn(identity);
  const bearer = { kind: "bearer" as const, token: accessToken };
  const marketId = `${name}-market`;
  const created = await client.request(
    "POST",
    "/v1/markets",
    {
      body: {
        commandId: `${name}-create`,
        marketId,
        principalId: name,
        subject: { schema: "table.v1", data: { seats: 4 } },
        mechanism: { presetId: "direct-claim.v1", config: { capacity: 1, pricing: { mode: "free" }, confirmation: "none" } },
      },
      credentials: bearer,
    },
  );
  if (created.status !== 201) throw new Error(`create failed: ${created.status} ${created.text}`);
  const published = await client.request("POST", `/v1/markets/${marketId}/publish`, { body: { commandId: `${name}-publish`, principalId: name, expectedVersion: 1 }, credentials: bearer });
  if (published.status !== 200) throw new Error(`publish failed: ${published.status} ${published.text}`);
  return { marketId, principalId: name };
}

/** The market is there, published, on a service started on the same directory. */
let readers = 0;
export async function publishedVersion(url: string, marketId: string, name: string): Promise<number | undefined> {
  const client = new MarketClient({ baseUrl: url });
  readers += 1;
  const identity = await client.provisionNewIdentity({ principalId: `${name}-reader-${process.pid}-${readers}` }, { credentials: { kind: "hmac", ...OPERATOR } });
  const { accessToken } = await client.signIn(identity);
  const market = await client.request("GET", `/v1/markets/${marketId}`, { credentials: { kind: "bearer", token: accessToken } });
  if (market.status !== 200) return undefined;
  return market.body.state === "open" ? (market.body.version as number) : undefined;
}

/** True when no process of the group `pgid` is left. */
export function groupGone(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}

/** Polls `condition` every 20 ms until it holds or `timeoutMs` passes (waiting on a real event, not a deadline). */
export async function eventually(condition: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await condition())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
