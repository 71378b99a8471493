/**
 * One HTTP/1.1 exchange on its own TCP connection, written byte for byte: what fetch will not send
 * (an unknown method, a Content-Length the body never matches, a body larger than the service's
 * limit). The connection is closed afterwards, as the service does after refusing a body.
 */
import { connect } from "node:net";

export interface RawReply {
  /** The status of the response, or 0 when the service closed the connection without one. */
  status: number;
  text: string;
}

/**
 * Sends `head` (request line and headers, without the blank line) and then `body`, and resolves with
 * the status of whatever the service answered. A write cut short by the service closing the
 * connection (it answers a declared length past what it would read at once, and closes) is not an
 * error as long as a response arrived.
 */
export function rawExchange(host: string, port: number, head: string, body: Buffer = Buffer.alloc(0), timeoutMs = 10_000): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = (error?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      const text = Buffer.concat(chunks).toString("latin1");
      const match = /^HTTP\/1\.1 (\d{3})/.exec(text);
      if (match !== null) resolve({ status: Number(match[1]), text });
      else if (error !== undefined) reject(error);
      else resolve({ status: 0, text });
    };
    const timer = setTimeout(() => finish(new Error(`no reply within ${timeoutMs} ms to ${head.split("\r\n")[0]}`)), timeoutMs);
    socket.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      const text = Buffer.concat(chunks).toString("latin1");
      const headEnd = text.indexOf("\r\n\r\n");
      if (headEnd < 0) return;
      const length = /\r\ncontent-length: *(\d+)/i.exec(text.slice(0, headEnd));
      if (length !== null && text.length >= headEnd + 4 + Number(length[1])) finish();
    });
    socket.on("end", () => finish());
    socket.on("close", () => finish());
    // EPIPE / ECONNRESET: the service refused the body and closed; the reply (if any) decides.
    socket.on("error", (error) => finish(error));
    socket.on("connect", () => {
      socket.write(`${head}\r\n\r\n`);
      if (body.length > 0) socket.write(body);
    });
  });
}

/**
 * Sends `head` and `body` and closes the connection without waiting for a reply: a client that
 * gave up (a timeout, a closed tab). With a body shorter than its Content-Length the service is
 * still reading it when the connection goes.
 */
export function rawAbandon(host: string, port: number, head: string, body: Buffer = Buffer.alloc(0)): Promise<void> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.on("error", () => undefined);
    socket.on("close", () => resolve());
    socket.on("connect", () => {
      socket.write(Buffer.concat([Buffer.from(`${head}\r\n\r\n`), body]), () => socket.destroy());
    });
  });
}
