/**
 * A TCP proxy on loopback between a client and one server that can hold back everything the server
 * sends while letting the client's bytes through: with a NATS client behind it, a publish reaches
 * the server and is stored, and its acknowledgement is lost to the client until `release` (a lost
 * ack, made with real sockets). Held bytes are delivered whole and in order on release, so the
 * protocol stream stays intact; the client has long given up on the late ack by then.
 */
import * as net from "node:net";

interface Pair {
  readonly client: net.Socket;
  readonly server: net.Socket;
  readonly held: Buffer[];
}

export class HoldingProxy {
  private readonly pairs = new Set<Pair>();
  private holding = false;
  private heldCount = 0;

  private constructor(private readonly listener: net.Server) {}

  static start(targetPort: number, targetHost = "127.0.0.1"): Promise<HoldingProxy> {
    const listener = net.createServer();
    const proxy = new HoldingProxy(listener);
    listener.on("connection", (client) => proxy.accept(client, targetPort, targetHost));
    return new Promise((resolve, reject) => {
      listener.once("error", reject);
      listener.listen(0, "127.0.0.1", () => resolve(proxy));
    });
  }

  get port(): number {
    return (this.listener.address() as net.AddressInfo).port;
  }

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  /** Chunks of server bytes held back since `hold` (0 while passing through). */
  get heldChunks(): number {
    return this.heldCount;
  }

  /**
   * Everything held back so far, as text (NATS protocol and JSON are ASCII): lets a test wait until
   * a given reply has been produced by the server, i.e. until the server has answered a request.
   */
  heldText(): string {
    return [...this.pairs].map((pair) => Buffer.concat(pair.held).toString("latin1")).join("");
  }

  /** From now on, what servers send is held back (the clients' bytes still pass). */
  hold(): void {
    this.holding = true;
  }

  /** Delivers everything held, in order, and passes server bytes through again. */
  release(): void {
    this.holding = false;
    this.heldCount = 0;
    for (const pair of this.pairs) {
      for (const chunk of pair.held.splice(0)) pair.client.write(chunk);
    }
  }

  close(): Promise<void> {
    for (const pair of this.pairs) {
      pair.client.destroy();
      pair.server.destroy();
    }
    return new Promise((resolve) => this.listener.close(() => resolve()));
  }

  private accept(client: net.Socket, targetPort: number, targetHost: string): void {
    const server = net.connect(targetPort, targetHost);
    const pair: Pair = { client, server, held: [] };
    this.pairs.add(pair);
    client.on("data", (chunk) => server.write(chunk));
    server.on("data", (chunk) => {
      if (this.holding) {
        pair.held.push(chunk);
        this.heldCount += 1;
      } else {
        client.write(chunk);
      }
    });
    const end = (): void => {
      this.pairs.delete(pair);
      client.destroy();
      server.destroy();
    };
    client.on("close", end);
    server.on("close", end);
    client.on("error", end);
    server.on("error", end);
  }
}
