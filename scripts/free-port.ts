/**
 * A free loopback port for a program that must be told its port before it starts: nats-server (its
 * configuration names every node's ports), nginx, a service restarted where its clients reconnect.
 * Used by the launchers (scripts/nats-cluster.ts, test/cluster/support/, test/…), scripts/local-cluster.ts and the benches.
 *
 * Why not the port the kernel picks for listen(0): it comes from the ephemeral range
 * (net.ipv4.ip_local_port_range), the range every outgoing connection on the machine takes its local
 * port from. Between the moment such a port is let go and the moment the program binds it, a NATS
 * client's or an HTTP client's connection anywhere on the machine may take it, and the program then
 * cannot listen ("address in use": seen in CI, where a cluster test's service node failed to start).
 * A port outside that range is never handed to an outgoing connection nor to listen(0), so only a
 * program binding it by number, such as another caller of this function choosing the same port at
 * random, can take it in between. Where the range cannot be read or leaves no room, listen(0) it is.
 */
import { readFileSync } from "node:fs";
import * as net from "node:net";

/** The lowest port chosen (below it lie more well-known services). */
const LOWEST = 10_000;

/** Ports this process has handed out already: never twice, so two launches in one process never share one. */
const handedOut = new Set<number>();

/** Whether `port` can be bound on 127.0.0.1 now. */
export function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/** The ports outside the ephemeral range, as [first, last] spans; empty when it cannot be read (not Linux). */
function portsOutsideEphemeralRange(): Array<[number, number]> {
  let text: string;
  try {
    text = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8");
  } catch {
    return [];
  }
  const [low, high] = text.trim().split(/\s+/).map(Number);
  if (low === undefined || high === undefined || !Number.isInteger(low) || !Number.isInteger(high)) return [];
  const spans: Array<[number, number]> = [];
  if (low - 1 >= LOWEST) spans.push([LOWEST, low - 1]);
  if (high + 1 <= 65_535) spans.push([Math.max(high + 1, LOWEST), 65_535]);
  return spans;
}

/** A port the kernel picks (listen(0)): the fallback where no port outside the ephemeral range is known. */
function kernelPickedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** A loopback port nothing listens on now, outside the ephemeral range, never returned before by this process. */
export async function freePort(): Promise<number> {
  const spans = portsOutsideEphemeralRange();
  const size = spans.reduce((total, [first, last]) => total + last - first + 1, 0);
  for (let attempt = 0; size > 0 && attempt < 1_000; attempt += 1) {
    let offset = Math.floor(Math.random() * size);
    let port = 0;
    for (const [first, last] of spans) {
      if (offset <= last - first) {
        port = first + offset;
        break;
      }
      offset -= last - first + 1;
    }
    if (handedOut.has(port) || !(await portFree(port))) continue;
    handedOut.add(port);
    return port;
  }
  for (;;) {
    const port = await kernelPickedPort();
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    return port;
  }
}
