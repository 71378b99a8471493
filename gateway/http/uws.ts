/**
 * The one place that loads uWebSockets.js.
 *
 * `@trufflesuite/uws-js-unofficial` silently falls back to a pure-JS emulation (much slower, and
 * with different edge-case behaviour) when its native binary does not load for this Node ABI; it
 * only prints a console warning. A market service that quietly runs on the emulation would pass
 * every functional test and then miss its throughput targets in production, so we refuse to start.
 *
 * The package is CommonJS; from ESM only the default import works (`import { App }` fails).
 *
 * Single binary (dist/market-service): the build aliases this package import to
 * engine/binary/uws-addon.ts, which extracts the embedded addon once and process.dlopen's it, and
 * throws (the binary refuses to start, one clear line) when it cannot; the package's loader and its
 * `ws` fallback are not in the binary. Everywhere else this is the normal package import.
 */
import uWS from "@trufflesuite/uws-js-unofficial";
import type { TemplatedApp, us_listen_socket } from "@trufflesuite/uws-js-unofficial";

export type { HttpRequest, HttpResponse, TemplatedApp, us_listen_socket } from "@trufflesuite/uws-js-unofficial";

/**
 * `app.close()` exists at runtime (it closes the listen sockets AND every open connection, which is
 * what a clean shutdown needs) but the shipped typings do not declare it.
 */
declare module "@trufflesuite/uws-js-unofficial" {
  interface TemplatedApp {
    close(): void;
  }
}

/**
 * Listen option literal for an exclusive port (no SO_REUSEPORT). The declared `ListenOptions` enum
 * is `undefined` at runtime, so the enum cannot be used as a value; the runtime export
 * `LIBUS_LISTEN_EXCLUSIVE_PORT` is 1 but untyped. With the default (shared) option any other process
 * of the same uid can bind the same port and silently take a share of the traffic.
 */
export const LISTEN_EXCLUSIVE_PORT = 1 as const;
export const LISTEN_DEFAULT = 0 as const;
export type ListenOption = typeof LISTEN_DEFAULT | typeof LISTEN_EXCLUSIVE_PORT;

export class UwsNotNativeError extends Error {
  override name = "UwsNotNativeError";
}

/** True when the loaded module is the native addon (its functions are native, not JS source). */
export function isNativeUws(module: { App: unknown }): boolean {
  return typeof module.App === "function" && Function.prototype.toString.call(module.App).includes("[native code]");
}

/** Throws unless the native uWS binary is loaded. Called before every App is built. */
export function assertNativeUws(): void {
  if (!isNativeUws(uWS)) {
    throw new UwsNotNativeError(
      "uWebSockets.js native binary did not load " +
        `(platform ${process.platform}, arch ${process.arch}, node ABI ${process.versions.modules}); ` +
        "refusing to start on the slow JavaScript fallback. Install a Node version the binary supports " +
        "(ABI 93, 108 or 115) and make sure UWS_USE_FALLBACK is not set.",
    );
  }
}

// Checked once at load, so a bad install fails the first import rather than the first request.
assertNativeUws();

export interface AppTlsFiles {
  certFile: string;
  keyFile: string;
  passphrase?: string;
}

/** Builds a plain App, or an SSLApp when TLS files are given. */
export function createUwsApp(tls: AppTlsFiles | undefined): TemplatedApp {
  assertNativeUws();
  if (tls === undefined) return uWS.App();
  return uWS.SSLApp({
    cert_file_name: tls.certFile,
    key_file_name: tls.keyFile,
    ...(tls.passphrase === undefined ? {} : { passphrase: tls.passphrase }),
  });
}

/**
 * Binds `host:port` (port 0 picks a free port) and resolves with the actual port. The four-argument
 * `listen(host, port, options, cb)` exists at runtime; the typings only declare it without a host.
 */
export function listenOn(
  app: TemplatedApp,
  host: string,
  port: number,
  option: ListenOption,
): Promise<{ socket: us_listen_socket; port: number }> {
  return new Promise((resolve, reject) => {
    const listen = app.listen as unknown as (
      host: string,
      port: number,
      options: number,
      cb: (socket: us_listen_socket | false) => void,
    ) => TemplatedApp;
    listen.call(app, host, port, option, (socket) => {
      if (socket === false) {
        reject(new Error(`cannot listen on ${host}:${port} (address in use or not available)`));
        return;
      }
      resolve({ socket, port: uWS.us_socket_local_port(socket as never) });
    });
  });
}

/** Stop accepting on one listen socket; open connections are untouched (graceful drain). */
export function closeListenSocket(socket: us_listen_socket): void {
  uWS.us_listen_socket_close(socket);
}

/** Closes the listen sockets and every open connection (in-flight requests see onAborted). */
export function closeApp(app: TemplatedApp): void {
  app.close();
}
