/**
 * The stream reader's resumption (engine/journal/jetstream-stream-reader.ts): a consumer that ends
 * early, delivers out of order or stalls is replaced at the first message not handed over, every
 * message is handed over once and in order, and each replacement is reported with its reason (what a
 * takeover's `partition acquired` line shows as streamReadsResumed). Streams and time are stand-ins:
 * the test moves the clock; nothing waits on real time.
 */
import { describe, expect, it } from "vitest";
import { readStreamMessages } from "../../engine/journal/jetstream-stream-reader.js";
import type { OrderedConsumer, StoredMessage, Streams } from "../../engine/messaging/streams.js";
import { SteppedTimers } from "../support/stepped-timers.js";

/** What each consumer does, in order of creation: deliver these sequences, then end (with an error) or stay open. */
type Script = { deliver: number[]; end?: Error | "never" };

function scriptedStreams(scripts: Script[]): { streams: Streams; startedAt: number[] } {
  const startedAt: number[] = [];
  const message = (sequence: number): StoredMessage => ({ streamSequence: sequence, data: new Uint8Array([sequence]), msgId: `m${sequence}` });
  const streams: Streams = {
    add: () => Promise.reject(new Error("not used")),
    info: () => Promise.reject(new Error("not used")),
    getMessage: () => Promise.reject(new Error("not used")),
    publish: () => Promise.reject(new Error("not used")),
    consume: async (_name, fromSequence, onMessage): Promise<OrderedConsumer> => {
      startedAt.push(fromSequence);
      const script = scripts.shift() ?? { deliver: [] };
      let close: (value: Error | undefined) => void = () => undefined;
      const ended = new Promise<Error | undefined>((resolve) => (close = resolve));
      setImmediate(() => {
        for (const sequence of script.deliver) onMessage(message(sequence));
        if (script.end instanceof Error) close(script.end);
      });
      return { ended, close: async () => close(undefined) };
    },
  };
  return { streams, startedAt };
}

async function read(scripts: Script[], from: number, last: number): Promise<{ handed: number[]; replaced: string[]; startedAt: number[] }> {
  const timers = new SteppedTimers();
  const { streams, startedAt } = scriptedStreams(scripts);
  const handed: number[] = [];
  const replaced: string[] = [];
  let finished = false;
  const reading = readStreamMessages(streams, timers, "partition-0", from, last, 60_000, (m) => handed.push(m.streamSequence), (problem) => replaced.push(problem)).then(() => {
    finished = true;
  });
  for (let i = 0; i < 100 && !finished; i++) await timers.step(1_000);
  await reading;
  return { handed, replaced, startedAt };
}

describe("reading a stream through replaceable consumers", () => {
  it("reports no replacement when one consumer delivers everything", async () => {
    const { handed, replaced, startedAt } = await read([{ deliver: [1, 2, 3, 4] }], 1, 4);
    expect(handed).toEqual([1, 2, 3, 4]);
    expect(replaced).toEqual([]);
    expect(startedAt).toEqual([1]);
  });

  it("goes on at the first message not handed over when a consumer ends early, and says why", async () => {
    const { handed, replaced, startedAt } = await read([{ deliver: [1, 2], end: new Error("the stream's leader changed") }, { deliver: [3, 4, 5] }], 1, 5);
    expect(handed).toEqual([1, 2, 3, 4, 5]);
    expect(startedAt).toEqual([1, 3]);
    expect(replaced).toEqual(["at message 3: the stream's leader changed"]);
  });

  it("replaces a consumer that skipped a message, and hands nothing over twice", async () => {
    const { handed, replaced, startedAt } = await read([{ deliver: [1, 3], end: "never" }, { deliver: [2, 3, 4] }], 1, 4);
    expect(handed).toEqual([1, 2, 3, 4]);
    expect(startedAt).toEqual([1, 2]);
    expect(replaced).toEqual(["at message 2: message 3 arrived while 2 was expected"]);
  });

  it("replaces a consumer that delivers nothing for the stall time, and counts each replacement", async () => {
    const { handed, replaced, startedAt } = await read([{ deliver: [7], end: "never" }, { deliver: [], end: "never" }, { deliver: [8, 9] }], 7, 9);
    expect(handed).toEqual([7, 8, 9]);
    expect(startedAt).toEqual([7, 8, 8]);
    expect(replaced).toEqual(["at message 8: the consumer delivered nothing for 5000 ms", "at message 8: the consumer delivered nothing for 5000 ms"]);
  });
});
