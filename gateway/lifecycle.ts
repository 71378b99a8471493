/**
 * How a serving process ends, whichever process of its start command is told to stop.
 *
 * `npm start` runs `npm` → `node`, often under a shell (`sh -c "npm ci && npm start"`). A terminal's
 * Ctrl-C reaches all of them; `kill` reaches one. So:
 * - SIGTERM, SIGINT and SIGHUP start a graceful stop (drain, fsync, snapshot, exit 0). npm forwards
 *   SIGINT and SIGTERM to its child, so a Ctrl-C arrives twice (from the terminal and from npm):
 *   a repeat of the first signal within DUPLICATE_SIGNAL_WINDOW_MS is the same request.
 * - Any other signal after the first (a later repeat, or a different stop signal) exits at once
 *   (128 + the signal's number): what was acknowledged is already on disk; only the drain and the
 *   snapshot are skipped.
 * - The launcher's processes (the ancestors in this process's own process group: npm, and the shell
 *   that ran it) are watched; if one of them goes away (a SIGTERM or kill -9 to npm or to the shell),
 *   this process stops gracefully instead of living on as an orphan.
 */
import { constants } from "node:os";
import { isAlive, processStat } from "../storage/process-stat.js";

export const STOP_SIGNALS = ["SIGTERM", "SIGINT", "SIGHUP"] as const;
export type StopSignal = (typeof STOP_SIGNALS)[number];

/** Copies of one signal delivered this close together are one request (terminal + npm). */
export const DUPLICATE_SIGNAL_WINDOW_MS = 500;
/** How often the launcher's processes are checked. */
const LAUNCHER_POLL_MS = 250;

export interface StopHandlers {
  /** Begin a graceful stop (called once). */
  stop(reason: string): void;
  /** A second stop request: exit at once with this status. */
  exitNow(reason: string, status: number): void;
}

/** Installs the signal handlers and the launcher watch; returns a function that removes both. */
export function installStopHandlers(handlers: StopHandlers, nowMs: () => number = () => performance.now()): () => void {
  let first: { signal: StopSignal | undefined; atMs: number } | undefined;
  const request = (reason: string, signal: StopSignal | undefined) => {
    const now = nowMs();
    if (first === undefined) {
      first = { signal, atMs: now };
      handlers.stop(reason);
      return;
    }
    if (signal === undefined) return; // the launcher went away during a stop already begun
    if (signal === first.signal && now - first.atMs < DUPLICATE_SIGNAL_WINDOW_MS) return;
    handlers.exitNow(reason, 128 + constants.signals[signal]);
  };
  const listeners = STOP_SIGNALS.map((signal) => {
    const listener = () => request(`${signal} received`, signal);
    process.on(signal, listener);
    return { signal, listener };
  });
  const stopWatching = watchLauncher((reason) => request(reason, undefined));
  return () => {
    for (const { signal, listener } of listeners) process.off(signal, listener);
    stopWatching();
  };
}

interface Ancestor {
  pid: number;
  command: string;
  startTicks: number;
}

/** Calls `onGone` once when one of the launcher's processes has exited. */
export function watchLauncher(onGone: (reason: string) => void): () => void {
  const ancestors = launcherProcesses();
  if (ancestors.length === 0) return () => undefined;
  const timer = setInterval(() => {
    const gone = ancestors.find((ancestor) => !isAlive(ancestor.pid, ancestor.startTicks));
    if (gone === undefined) return;
    clearInterval(timer);
    onGone(`the launching process ${gone.pid} (${gone.command}) exited`);
  }, LAUNCHER_POLL_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * This process's ancestors that belong to its process group: the processes of the same start
 * command (npm, the shell that ran it). A process started on its own (systemd, a terminal's job
 * control, a supervisor) leads its own group and has none.
 */
export function launcherProcesses(): Ancestor[] {
  const own = processStat(process.pid);
  if (own === undefined) return [];
  const ancestors: Ancestor[] = [];
  let pid = own.ppid;
  while (pid > 1 && ancestors.length < 16) {
    const stat = processStat(pid);
    if (stat === undefined || stat.pgrp !== own.pgrp) break;
    ancestors.push({ pid, command: stat.command, startTicks: stat.startTicks });
    pid = stat.ppid;
  }
  return ancestors;
}
