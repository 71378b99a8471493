/**
 * Request headers, copied out of the uWS request before anything else happens: `HttpRequest` is
 * stack-allocated and invalid after the first await or return, so nothing may keep it.
 *
 * Storage is two parallel arrays scanned linearly: uWS refuses requests with more than about 48
 * headers, and for that few a scan beats building a Map per request.
 */
import type { HttpRequest } from "./uws.js";

/**
 * Headers that must appear at most once. A repeated one is ambiguous (which `authorization` did the
 * client sign? which `content-length` frames the body?), and proxies may pick differently from us,
 * which is how request smuggling and auth confusion start. Such requests are refused.
 */
export const SINGLETON_HEADERS: ReadonlySet<string> = new Set([
  "authorization",
  "content-length",
  "content-type",
  "host",
  "transfer-encoding",
  "x-request-id",
  "x-service-actor",
  "x-service-timestamp",
]);

export class RequestHeaders {
  /** Lowercase names (uWS lowercases them) and values, in arrival order; repeats are combined. */
  private readonly names: string[] = [];
  private readonly values: string[] = [];

  /** The value of a header by lowercase name, or undefined. Repeated headers come joined by ", ". */
  get(lowerCaseName: string): string | undefined {
    const names = this.names;
    for (let i = 0; i < names.length; i++) {
      if (names[i] === lowerCaseName) return this.values[i];
    }
    return undefined;
  }

  has(lowerCaseName: string): boolean {
    return this.get(lowerCaseName) !== undefined;
  }

  get count(): number {
    return this.names.length;
  }

  /** [name, value] pairs, for logging or forwarding. */
  entries(): [string, string][] {
    return this.names.map((name, i) => [name, this.values[i] ?? ""]);
  }

  /** Used while copying; returns false when `name` is a singleton that was already present. */
  add(name: string, value: string): boolean {
    const names = this.names;
    for (let i = 0; i < names.length; i++) {
      if (names[i] === name) {
        if (SINGLETON_HEADERS.has(name)) return false;
        // RFC 9110 §5.3: repeated field lines combine into one comma-separated value.
        this.values[i] = `${this.values[i] ?? ""}, ${value}`;
        return true;
      }
    }
    names.push(name);
    this.values.push(value);
    return true;
  }
}

export type HeaderCopyResult = { ok: true; headers: RequestHeaders } | { ok: false; message: string };

/** Copies every header of `req`, refusing repeated singletons and header blocks over the limit. */
export function copyRequestHeaders(req: HttpRequest, maxHeaderBytes: number): HeaderCopyResult {
  const headers = new RequestHeaders();
  let totalBytes = 0;
  let problem: string | undefined;
  req.forEach((name, value) => {
    if (problem !== undefined) return;
    // Header bytes are latin1 on the wire, so string length = bytes here.
    totalBytes += name.length + value.length;
    if (totalBytes > maxHeaderBytes) problem = `request headers exceed ${maxHeaderBytes} bytes`;
    else if (!headers.add(name, value)) problem = `header ${name} must not be repeated`;
  });
  return problem === undefined ? { ok: true, headers } : { ok: false, message: problem };
}
