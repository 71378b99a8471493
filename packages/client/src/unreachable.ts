/**
 * When a request never got an answer, say which service could not be reached and why, in words a
 * person can act on: fetch itself only says `fetch failed`, with the cause a level down
 * (`ECONNREFUSED`, `ENOTFOUND`, a TLS code, a timeout).
 */
import { MarketServiceError } from "./service-error.js";

/**
 * Cause code → what it means, and what to try. `lasting`: trying again soon cannot help (a name that
 * does not resolve, a TLS certificate or protocol mismatch), so the client does not retry it; every
 * other cause may pass (a service restarting refuses or resets connections for a while).
 */
const CAUSES: Readonly<Record<string, { what: string; hint: string; lasting?: true; afterSent?: true }>> = {
  ECONNREFUSED: { what: "connection refused", hint: "is the service running, and on this port?" },
  ENOTFOUND: { what: "host not found", hint: "check the host name in the URL", lasting: true },
  EAI_AGAIN: { what: "host name lookup failed for now", hint: "check DNS, then try again" },
  ETIMEDOUT: { what: "connection timed out", hint: "is the host reachable, and the port open?" },
  UND_ERR_CONNECT_TIMEOUT: { what: "connection timed out", hint: "is the host reachable, and the port open?" },
  // `afterSent`: the connection was open and ended before the answer, so how long after the request
  // tells an idle or slow exchange cut by a timer (the service's or a proxy's) from a refusal at once.
  ECONNRESET: { what: "connection reset", hint: "does the URL's scheme (http or https) match the service?", afterSent: true },
  UND_ERR_SOCKET: { what: "connection closed by the other side", hint: "does the URL's scheme (http or https) match the service?", afterSent: true },
  EHOSTUNREACH: { what: "host unreachable", hint: "check the network route to the host" },
  ENETUNREACH: { what: "network unreachable", hint: "check the network route to the host" },
  EPROTO: { what: "TLS handshake failed", hint: "does the URL's scheme (http or https) match the service?", lasting: true },
  ERR_SSL_WRONG_VERSION_NUMBER: { what: "TLS handshake failed", hint: "the service may speak plain http: check the URL's scheme", lasting: true },
  DEPTH_ZERO_SELF_SIGNED_CERT: { what: "self-signed TLS certificate", hint: "trust it with NODE_EXTRA_CA_CERTS", lasting: true },
  SELF_SIGNED_CERT_IN_CHAIN: { what: "TLS certificate chain not trusted", hint: "trust its CA with NODE_EXTRA_CA_CERTS", lasting: true },
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: { what: "TLS certificate not trusted", hint: "trust its CA with NODE_EXTRA_CA_CERTS", lasting: true },
  CERT_HAS_EXPIRED: { what: "TLS certificate expired", hint: "renew the service's certificate", lasting: true },
  ERR_TLS_CERT_ALTNAME_INVALID: { what: "TLS certificate is for another host name", hint: "use the host name the certificate names", lasting: true },
};

/** A connection that ends this long after its request was started was not refused at once. */
const LATE_CLOSE_MS = 1_000;

/** The first error code found on `error` or its causes (fetch wraps the socket error). */
function causeCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current !== null && typeof current === "object"; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") return code;
    const errors = (current as { errors?: unknown }).errors;
    if (Array.isArray(errors)) {
      const inner = errors.map(causeCode).find((found) => found !== undefined);
      if (inner !== undefined) return inner;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function causeText(error: unknown): string {
  let current: unknown = error;
  let text = error instanceof Error ? error.message : String(error);
  for (let depth = 0; depth < 4 && current instanceof Error; depth += 1) {
    text = current.message;
    current = current.cause;
  }
  return text;
}

/**
 * The error of a request that got no HTTP answer at all (code `unreachable`, status 0):
 * `cannot reach http://127.0.0.1:8080 (connection refused, ECONNREFUSED): is the service running,
 * and on this port?`; a connection that ended before the answer also says how long after the
 * request was started (`elapsedMs`, by the client's clock: connecting included).
 */
export function unreachable(url: string, action: string, error: unknown, timeoutMs: number | undefined, elapsedMs: number): MarketServiceError {
  const failed = (causeCode: string | undefined, message: string, lasting = false) => new MarketServiceError({ code: "unreachable", status: 0, serviceMessage: message, message, action, causeCode, lasting });
  const name = error instanceof Error ? error.name : "";
  if (name === "TimeoutError" || name === "AbortError") {
    const within = timeoutMs === undefined ? "in time" : `within ${timeoutMs / 1000} s`;
    return failed("timeout", `cannot reach ${url} (no answer ${within}): is the service overloaded, or the address wrong?`);
  }
  const code = causeCode(error);
  const known = code === undefined ? undefined : CAUSES[code];
  if (known !== undefined && known.afterSent === true) {
    // At once: likely a plain-http/https mismatch; after a while: an exchange a timer or a restart ended.
    const hint = elapsedMs < LATE_CLOSE_MS ? known.hint : "the service, or a proxy before it, ended the exchange before answering: retry; if it recurs, check their timeouts and restarts";
    return failed(code, `cannot reach ${url} (${known.what}, ${code}, ${Math.round(elapsedMs)} ms after the request was started): ${hint}`);
  }
  if (known !== undefined) return failed(code, `cannot reach ${url} (${known.what}, ${code}): ${known.hint}`, known.lasting === true);
  const detail = code === undefined ? causeText(error) : `${code}: ${causeText(error)}`;
  return failed(code, `cannot reach ${url} (${detail})`);
}
