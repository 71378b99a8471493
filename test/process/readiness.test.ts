/**
 * /livez, /readyz and the readiness gate on a real service: the server listens while its shards
 * recover, and only the probes say so; every other route answers 503 `service_unavailable` with
 * Retry-After until recovery finishes, and again once a stop has begun; a shard that dies makes
 * /readyz name it. The shard workers here are the real ones behind a gate the test opens (a file), so
 * "still recovering" lasts exactly as long as the test needs.
 */
import { mkdtempSync } from "node:fs";
import { Socket } from "node:net";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { STARTING_MESSAGE, STOPPING_MESSAGE } from "../../gateway/http/readiness.js";
import { startService, type RunningService } from "../../gateway/service.js";
import { eventually } from "./support.js";
import { freePort } from "../../scripts/free-port.js";
import { gatedWorkers } from "../support/gated-workers.js";

async function get(base: string, route: string): Promise<{ status: number; retryAfter: string | null; body: { status?: string; error?: { code: string; message: string } } }> {
  const response = await fetch(`${base}${route}`);
  return { status: response.status, retryAfter: response.headers.get("retry-after"), body: (await response.json()) as never };
}

let service: RunningService | undefined;
afterEach(async () => {
  await service?.close();
  service = undefined;
});

describe("readiness", () => {
  it("while the shards recover: /livez 200, /readyz and /healthz 503, every other route 503 with Retry-After; then ready", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "readiness-"));
    const workers = gatedWorkers(dir);
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const starting = startService({
      env: { DATA_DIR: path.join(dir, "data"), HOST: "127.0.0.1", PORT: String(port), SHARDS: "2", LOG_LEVEL: "silent" },
      workerSource: workers.source,
    });
    await eventually(async () => (await fetch(`${base}/livez`).then((r) => r.status).catch(() => 0)) === 200, 60_000, "/livez");

    const ready = await get(base, "/readyz");
    expect(ready).toMatchObject({ status: 503, retryAfter: "1", body: { error: { code: "service_unavailable" } } });
    expect(ready.body.error?.message).toBe(STARTING_MESSAGE);
    expect(await get(base, "/healthz")).toMatchObject({ status: 503, body: { error: { code: "service_unavailable" } } });
    expect(await get(base, "/v1/markets/m-1")).toMatchObject({ status: 503, retryAfter: "1", body: { error: { code: "service_unavailable" } } });
    const post = await fetch(`${base}/v1/auth/challenges`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"actorId":"a","keyId":"k"}' });
    expect(post.status).toBe(503);
    expect(post.headers.get("retry-after")).toBe("1");

    workers.open();
    service = await starting;
    expect(await get(base, "/readyz")).toMatchObject({ status: 200, body: { status: "ready" } });
    expect(await get(base, "/healthz")).toMatchObject({ status: 200, body: { status: "ok" } });
    expect(await get(base, "/livez")).toMatchObject({ status: 200, body: { status: "ok" } });
    expect((await get(base, "/v1/markets/m-1")).status).toBe(401);
  });

  it("a shard whose worker died: /readyz names it", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "readiness-"));
    const workers = gatedWorkers(dir);
    workers.open();
    const fatal: string[] = [];
    service = await startService({
      env: { DATA_DIR: path.join(dir, "data"), HOST: "127.0.0.1", PORT: "0", SHARDS: "2", LOG_LEVEL: "silent" },
      workerSource: workers.source,
      onFatal: (message) => fatal.push(message),
    });
    expect((await get(service.url, "/readyz")).status).toBe(200);
    workers.crash(1);
    await eventually(() => fatal.length > 0, 60_000, "the shard's exit");
    const ready = await get(service.url, "/readyz");
    expect(ready).toMatchObject({ status: 503, body: { error: { code: "service_unavailable", message: "shard 1 not accepting commands" } } });
  });

  it("once a stop has begun, requests on open connections get 503 (readyz says stopping) while the drain finishes", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "readiness-"));
    const running = await startService({ env: { DATA_DIR: path.join(dir, "data"), HOST: "127.0.0.1", PORT: "0", SHARDS: "1", LOG_LEVEL: "silent" } });
    // One connection holds a request whose body is not finished (the drain waits for it); another
    // keep-alive connection asks /readyz after the stop began.
    const holder = new Socket();
    const asker = new Socket();
    await Promise.all([holder, asker].map((socket) => new Promise<void>((resolve) => socket.connect(running.port, "127.0.0.1", resolve))));
    holder.on("error", () => undefined);
    holder.write("POST /v1/markets HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n{");
    let received = "";
    asker.on("data", (chunk: Buffer) => (received += chunk.toString("latin1")));
    asker.write("GET /livez HTTP/1.1\r\nHost: x\r\n\r\n");
    await eventually(() => received.includes('{"status":"ok"}'), 60_000, "a first answer on the keep-alive connection");

    const closing = running.close();
    received = "";
    asker.write("GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n");
    await eventually(() => received.includes("\r\n\r\n{"), 60_000, "the /readyz answer");
    expect(received).toMatch(/^HTTP\/1\.1 503 /);
    expect(received.toLowerCase()).toContain("retry-after: 1");
    expect(received).toContain(`"message":"${STOPPING_MESSAGE}"`);
    holder.destroy();
    asker.destroy();
    await closing;
  });
});
