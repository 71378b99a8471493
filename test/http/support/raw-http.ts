/**
 * A raw HTTP/1.1 client over node:net for the cases fetch cannot express (malformed targets,
 * truncated bodies, huge headers, pipelining) and for observing when the server closes.
 *
 * It never half-closes (uWS treats a client FIN as an abort), and waits on socket events only.
 */
import net from "node:net";

export interface RawResponse {
  status: number;
  headers: Map<string, string>;
  body: string;
}

export interface RawExchangeResult {
  /** Responses parsed from what the server sent, in order. */
  responses: RawResponse[];
  /** Everything received. */
  raw: Buffer;
  /** How the socket ended: the server closed it, or it reset. */
  closedBy: "server" | "reset" | "client";
}

/** Parses as many complete responses (Content-Length framed) as `raw` holds; bodies as UTF-8. */
export function parseResponses(raw: Buffer): RawResponse[] {
  const responses: RawResponse[] = [];
  let rest = raw;
  for (;;) {
    const headerEnd = rest.indexOf("\r\n\r\n");
    if (headerEnd < 0) return responses;
    const lines = rest.subarray(0, headerEnd).toString("latin1").split("\r\n");
    const statusMatch = /^HTTP\/1\.1 (\d{3})/.exec(lines[0] ?? "");
    if (statusMatch === null) throw new Error(`bad status line: ${JSON.stringify(lines[0])}`);
    const headers = new Map<string, string>();
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(":");
      headers.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
    }
    const status = Number(statusMatch[1]);
    const bodyStart = headerEnd + 4;
    if (status === 100) {
      rest = rest.subarray(bodyStart);
      continue;
    }
    const length = Number(headers.get("content-length") ?? "0");
    if (rest.length < bodyStart + length) return responses;
    responses.push({ status, headers, body: rest.subarray(bodyStart, bodyStart + length).toString("utf8") });
    rest = rest.subarray(bodyStart + length);
  }
}

export interface RawOptions {
  /** Resolve once this many responses arrived (then the client closes). Default 1. */
  expectResponses?: number;
  /** Bytes written after connecting; a function may write progressively. */
  send: string | Buffer | ((socket: net.Socket) => Promise<void> | void);
}

/** Connects, sends, and resolves when `expectResponses` arrived or the server closed/reset. */
export function rawExchange(port: number, options: RawOptions): Promise<RawExchangeResult> {
  const expectResponses = options.expectResponses ?? 1;
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    let raw = Buffer.alloc(0);
    let settled = false;
    const finish = (closedBy: RawExchangeResult["closedBy"]): void => {
      if (settled) return;
      settled = true;
      socket.destroy();
      try {
        resolve({ responses: parseResponses(raw), raw, closedBy });
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    };
    socket.on("data", (data) => {
      raw = Buffer.concat([raw, data]);
      if (parseResponses(raw).length >= expectResponses) finish("client");
    });
    socket.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "ECONNRESET" || error.code === "EPIPE") finish("reset");
      else if (!settled) {
        settled = true;
        reject(error);
      }
    });
    socket.on("end", () => finish("server"));
    socket.on("close", () => finish("server"));
    socket.on("connect", () => {
      const send = options.send;
      if (typeof send === "function") {
        Promise.resolve(send(socket)).catch(() => {
          // Write failures (EPIPE after the server closed) surface through the error/close events.
        });
      } else {
        socket.write(send);
      }
    });
  });
}

/** Writes `totalBytes` of filler in chunks, respecting backpressure; stops if the socket dies. */
export async function writeFiller(socket: net.Socket, totalBytes: number, chunkBytes = 64 * 1024, byte = 0x20): Promise<number> {
  let written = 0;
  while (written < totalBytes && !socket.destroyed) {
    const size = Math.min(chunkBytes, totalBytes - written);
    const flushed = socket.write(Buffer.alloc(size, byte));
    written += size;
    if (!flushed) {
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
  }
  return written;
}

/** Opens a connection and resolves once it is connected. */
export function connect(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.once("connect", () => resolve(socket));
    socket.once("error", reject);
  });
}

/** Resolves when the socket closes (for "the server dropped the connection" checks). */
export function closed(socket: net.Socket): Promise<void> {
  return new Promise((resolve) => {
    if (socket.destroyed) resolve();
    else socket.once("close", () => resolve());
  });
}
