/**
 * Which stop requests count (lifecycle.ts), on an injected clock: the first starts a graceful stop; a
 * repeat of the same signal within the duplicate window is the same request (a terminal's Ctrl-C
 * reaches npm and the service, and npm forwards its copy); a later repeat or another signal exits at
 * once with 128 + its number.
 */
import { afterEach, describe, expect, it } from "vitest";
import { DUPLICATE_SIGNAL_WINDOW_MS, installStopHandlers } from "../../gateway/lifecycle.js";

let uninstall: (() => void) | undefined;
afterEach(() => {
  uninstall?.();
  uninstall = undefined;
});

function install(clock: { nowMs: number }) {
  const calls: string[] = [];
  uninstall = installStopHandlers(
    { stop: (reason) => calls.push(`stop: ${reason}`), exitNow: (reason, status) => calls.push(`exit ${status}: ${reason}`) },
    () => clock.nowMs,
  );
  return calls;
}

describe("stop signals", () => {
  it("a repeat of the first signal inside the window is ignored; after it, it exits at once", () => {
    const clock = { nowMs: 1000 };
    const calls = install(clock);
    process.emit("SIGINT");
    clock.nowMs += DUPLICATE_SIGNAL_WINDOW_MS - 1;
    process.emit("SIGINT");
    expect(calls).toEqual(["stop: SIGINT received"]);
    clock.nowMs += 1;
    process.emit("SIGINT");
    expect(calls).toEqual(["stop: SIGINT received", "exit 130: SIGINT received"]);
  });

  it("another stop signal after the first exits at once, even inside the window", () => {
    const clock = { nowMs: 0 };
    const calls = install(clock);
    process.emit("SIGTERM");
    process.emit("SIGHUP");
    expect(calls).toEqual(["stop: SIGTERM received", "exit 129: SIGHUP received"]);
  });
});
