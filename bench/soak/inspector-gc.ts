/**
 * A full garbage collection of the service's gateway thread, asked for through the V8 inspector
 * (the service runs with `--inspect=127.0.0.1:0` during a soak): the heap used read right after it
 * is what is live, which is what can be said to grow. Read at any other moment, the heap used lands
 * somewhere on the collector's saw-tooth (old-space garbage piles up between full collections, for
 * minutes under load) and a last-half trend fitted through it says more about when the collections
 * happened than about memory that stays.
 *
 * Only the gateway thread is reached this way; the shard and replay workers' heaps are in the RSS.
 * The inspector protocol is spoken over Node's WebSocket client (global with
 * `--experimental-websocket` on Node 20, which `npm run bench:soak` passes).
 */

interface InspectorSocket {
  addEventListener(type: "open" | "message" | "error" | "close", listener: (event: { data?: unknown }) => void): void;
  send(data: string): void;
  close(): void;
}

const INSPECTOR_URL = /Debugger listening on (ws:\/\/\S+)/;

/** The inspector's WebSocket address the service printed on its stderr at start. */
export async function inspectorUrl(stderr: () => string, timeoutMs = 10_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const match = INSPECTOR_URL.exec(stderr());
    if (match !== null) return match[1] as string;
    if (Date.now() > deadline) throw new Error("the service printed no inspector address (was it started with --inspect?)");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Runs `HeapProfiler.collectGarbage` on the inspected thread; resolves once it has finished. */
export function collectGarbage(url: string, timeoutMs = 30_000): Promise<void> {
  const WebSocketClass = (globalThis as { WebSocket?: new (url: string) => InspectorSocket }).WebSocket;
  if (WebSocketClass === undefined) return Promise.reject(new Error("no WebSocket client: run node with --experimental-websocket (npm run bench:soak does)"));
  return new Promise((resolve, reject) => {
    const socket = new WebSocketClass(url);
    let done = false;
    const finish = (error?: Error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.close();
      if (error === undefined) resolve();
      else reject(error);
    };
    const timer = setTimeout(() => finish(new Error(`no answer from the inspector within ${timeoutMs} ms`)), timeoutMs);
    socket.addEventListener("open", () => socket.send(JSON.stringify({ id: 1, method: "HeapProfiler.collectGarbage" })));
    socket.addEventListener("message", (event) => {
      const message = JSON.parse(String(event.data)) as { id?: number; error?: { message: string } };
      if (message.id !== 1) return;
      finish(message.error === undefined ? undefined : new Error(`inspector: ${message.error.message}`));
    });
    socket.addEventListener("error", () => finish(new Error(`inspector connection to ${url} failed`)));
    socket.addEventListener("close", () => finish(new Error("the inspector closed the connection before answering")));
  });
}
