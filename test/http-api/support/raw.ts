/**
 * Raw HTTP/1.1 over node:net, for what fetch cannot send: invalid UTF-8 in exact byte form, bodies
 * shorter than their Content-Length, connections dropped mid-body, un-normalized targets (`..`),
 * oversized header blocks. It never half-closes (uWS treats a client FIN as an abort).
 */
import net from "node:net";

export interface RawResponse {
  status: number;
  headers: Map<string, string>;
  body: string;
}

export interface RawResult {
  responses: RawResponse[];
  /** How the exchange ended: enough responses arrived, the server closed, or it reset. */
  end: "responses" | "closed" | "reset" | "timeout";
}

export function parseResponses(raw: Buffer): RawResponse[] {
  const responses: RawResponse[] = [];
  let rest = raw;
  for (;;) {
    const headerEnd = rest.indexOf("\r\n\r\n");
    if (headerEnd < 0) return responses;
    const lines = rest.subarray(0, headerEnd).toString("latin1").split("\r\n");
    const match = /^HTTP\/1\.1 (\d{3})/.exec(lines[0] ?? "");
    if (match === null) throw new Error(`bad status line ${JSON.stringify(lines[0])}`);
    const headers = new Map<string, string>();
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(":");
      headers.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
    }
    const status = Number(match[1]);
    const bodyStart = headerEnd + 4;
    if (status === 100) {
      rest = rest.subarray(bodyStart);
      continue;
    }
    if (headers.get("transfer-encoding") === "chunked") {
      const chunked = decodeChunked(rest.subarray(bodyStart));
      if (chunked === undefined) return responses;
      responses.push({ status, headers, body: chunked.body.toString("utf8") });
      rest = rest.subarray(bodyStart + chunked.consumed);
      continue;
    }
    const length = Number(headers.get("content-length") ?? "0");
    if (rest.length < bodyStart + length) return responses;
    responses.push({ status, headers, body: rest.subarray(bodyStart, bodyStart + length).toString("utf8") });
    rest = rest.subarray(bodyStart + length);
  }
}

/** A complete chunked body (streamed replies, e.g. MCP), or undefined while it is incomplete. */
function decodeChunked(bytes: Buffer): { body: Buffer; consumed: number } | undefined {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = bytes.indexOf("\r\n", at);
    if (lineEnd < 0) return undefined;
    const size = parseInt(bytes.subarray(at, lineEnd).toString("latin1"), 16);
    if (!Number.isInteger(size)) throw new Error("bad chunk size");
    const dataStart = lineEnd + 2;
    if (size === 0) {
      if (bytes.length < dataStart + 2) return undefined;
      return { body: Buffer.concat(parts), consumed: dataStart + 2 };
    }
    if (bytes.length < dataStart + size + 2) return undefined;
    parts.push(bytes.subarray(dataStart, dataStart + size));
    at = dataStart + size + 2;
  }
}

/**
 * Connects, runs `send`, resolves when `expect` responses arrived, the server closed or reset the
 * connection, or after `timeoutMs` (a safety net only; no test waits on it for a result).
 */
export function rawExchange(
  port: number,
  send: Buffer | string | ((socket: net.Socket) => void | Promise<void>),
  options: { expect?: number; timeoutMs?: number } = {},
): Promise<RawResult> {
  const expected = options.expect ?? 1;
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    let raw = Buffer.alloc(0);
    let settled = false;
    const finish = (end: RawResult["end"]): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      try {
        resolve({ responses: parseResponses(raw), end });
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    };
    const timer = setTimeout(() => finish("timeout"), options.timeoutMs ?? 15_000);
    socket.on("data", (chunk) => {
      raw = Buffer.concat([raw, chunk]);
      if (parseResponses(raw).length >= expected) finish("responses");
    });
    socket.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "ECONNRESET" || error.code === "EPIPE") finish("reset");
      else if (!settled) {
        settled = true;
        clearTimeout(timer);
        reject(error);
      }
    });
    socket.on("close", () => finish("closed"));
    socket.on("connect", () => {
      if (typeof send === "function") {
        Promise.resolve(send(socket)).catch(() => undefined);
      } else {
        socket.write(send);
      }
    });
  });
}

/** A complete request as bytes: `headers` are sent as given (add content-length yourself). */
export function rawRequest(method: string, target: string, headers: Record<string, string>, body?: Buffer | string): Buffer {
  const head = [`${method} ${target} HTTP/1.1`, "host: 127.0.0.1", ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), "", ""].join("\r\n");
  return Buffer.concat([Buffer.from(head, "latin1"), body === undefined ? Buffer.alloc(0) : Buffer.isBuffer(body) ? body : Buffer.from(body, "utf8")]);
}

/** Writes `bytes`, waiting for the socket to drain (backpressure); stops if the socket dies. */
export async function writeAll(socket: net.Socket, bytes: Buffer): Promise<void> {
  if (socket.destroyed) return;
  if (socket.write(bytes)) return;
  await new Promise<void>((resolve) => {
    const done = (): void => {
      socket.off("drain", done);
      socket.off("close", done);
      resolve();
    };
    socket.on("drain", done);
    socket.on("close", done);
  });
}
