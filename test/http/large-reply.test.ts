/**
 * Large JSON bytes (a hot market's record) are streamed in chunks under backpressure rather than
 * written with one `end`; the client must see exactly the same response either way.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./support/test-server.js";

const MiB = 1024 * 1024;
/** A JSON array of about `sizeBytes` with non-ASCII text, so byte and character counts differ. */
function jsonBytes(sizeBytes: number): Buffer {
  const row = JSON.stringify({ id: "cmd-000001", venue: "Hafen-Café ⚓", seats: 4 });
  return Buffer.from(`[${Array.from({ length: Math.ceil(sizeBytes / (row.length + 1)) }, () => row).join(",")}]`);
}
const LARGE = jsonBytes(6 * MiB);

function chunked(bytes: Buffer, chunkBytes: number): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.subarray(offset, offset + chunkBytes));
      offset += chunkBytes;
    },
  });
}
const SMALL = jsonBytes(64 * 1024);

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer([
    { method: "GET", pattern: "/large", handler: () => ({ status: 200, json: LARGE, headers: { "x-replayed": "yes" } }) },
    { method: "GET", pattern: "/small", handler: () => ({ status: 200, json: SMALL }) },
    { method: "GET", pattern: "/stream", handler: () => ({ status: 200, contentType: "application/json", stream: chunked(LARGE, 256 * 1024) }) },
  ]);
});
afterAll(() => t.server.close());

describe("large JSON replies", () => {
  it.each([
    ["/large", LARGE],
    ["/small", SMALL],
  ])("%s arrives byte for byte with its status and headers", async (path, expected) => {
    const response = await fetch(`${t.base}${path}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("x-request-id")).not.toBeNull();
    expect(response.headers.get("content-length")).toBe(String(expected.length));
    const body = Buffer.from(await response.arrayBuffer());
    expect(body.length).toBe(expected.length);
    expect(body.equals(expected)).toBe(true);
  });

  it("streams a reply of many chunks to its end under backpressure (uWS onWritable registered once per response)", async () => {
    // Before the fix a 6 MB stream of 256 KiB chunks stalled for good at 5.5 MB.
    const response = await fetch(`${t.base}/stream`);
    expect(response.status).toBe(200);
    expect(Buffer.from(await response.arrayBuffer()).equals(LARGE)).toBe(true);
  });

  it("serves other requests on the same server while several large replies stream, and keeps the connection usable", async () => {
    const [a, b, health] = await Promise.all([fetch(`${t.base}/large`), fetch(`${t.base}/large`), fetch(`${t.base}/healthz`)]);
    expect(health.status).toBe(200);
    for (const response of [a, b]) expect(Buffer.from(await response.arrayBuffer()).equals(LARGE)).toBe(true);
    const again = await fetch(`${t.base}/large`);
    expect(again.headers.get("x-replayed")).toBe("yes");
    expect((await again.arrayBuffer()).byteLength).toBe(LARGE.length);
  });
});
