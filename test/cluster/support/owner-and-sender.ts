/**
 * A real 3-node nats-server cluster and two connections to it, an owner's and a sender's, for a
 * test file whose Forwarders talk to each other (engine/cluster/forwarding.ts): started before the
 * file's tests and stopped after them. Read the connections inside tests (they exist from then on).
 */
import { afterAll, beforeAll } from "vitest";
import { connectMessaging, type NatsMessaging } from "../../../engine/messaging/nats/nats-messaging.js";
import { NatsCluster } from "../../../scripts/nats-cluster.js";

export interface OwnerAndSender {
  readonly owner: NatsMessaging;
  readonly sender: NatsMessaging;
}

export function ownerAndSender(): OwnerAndSender {
  let nats: NatsCluster | undefined;
  let owner: NatsMessaging | undefined;
  let sender: NatsMessaging | undefined;
  beforeAll(async () => {
    nats = await NatsCluster.start();
    const url = nats.nodes[0]?.url as string;
    owner = await connectMessaging([url], "owner");
    sender = await connectMessaging([url], "sender");
  }, 90_000);
  afterAll(async () => {
    await owner?.close();
    await sender?.close();
    await nats?.stop();
  });
  const started = (connection: NatsMessaging | undefined): NatsMessaging => {
    if (connection === undefined) throw new Error("the NATS connections are opened before the file's tests, not at its top level");
    return connection;
  };
  return {
    get owner() {
      return started(owner);
    },
    get sender() {
      return started(sender);
    },
  };
}
