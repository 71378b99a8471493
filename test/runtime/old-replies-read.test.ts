/**
 * Old replies on a journal without a view (a partition's stream): each is replayed from its market's
 * first command, whose payloads the shard reads through the journal. A failover's clients retry many
 * commands of one market at once; one read of the market's payloads serves them all, and the market
 * read last is kept for the retries after. On a real file journal in a temp dir, its view hidden and
 * what is read counted; every reply is checked against the one the command got.
 */
import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../engine/clock.js";
import { FileJournal } from "../../engine/journal/file-journal.js";
import type { Journal, JournalEntry } from "../../engine/journal/journal.js";
import { completeReplayWork } from "../../engine/pool-worker/replay-work.js";
import { ShardCore } from "../../engine/runtime/shard-core.js";
import type { CommandResponse, ShardRequest, ShardResponse } from "../../engine/shard-protocol/shard-protocol.js";
import { T0, commands, directClaim, request, tempDir } from "./support.js";

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()?.();
});

/** The file journal with no view, as a stream's journal has none, and the entries read through it. */
function streamLike(journal: FileJournal): { journal: Journal; entriesRead: () => number } {
  let entries = 0;
  const hidden = new Proxy(journal, {
    get(target, property) {
      if (property === "readView") return () => undefined;
      if (property === "readAt") return (position: number) => target.readAt(position).then((entry) => ((entries += 1), entry));
      if (property === "read") return (after: number, onEntry: (entry: JournalEntry) => void) => target.read(after, (entry) => ((entries += 1), onEntry(entry)));
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { journal: hidden, entriesRead: () => entries };
}

const claims = (marketId: string, from: number, count: number): ShardRequest[] =>
  Array.from({ length: count }, (_, i) => request(commands.claim(`p-${from + i}`, marketId, `${marketId}-claim-${from + i}`)));

/** The reply a response carries, replayed off the shard as the pool would. */
function replyOf(response: ShardResponse | undefined): string {
  if (response?.kind === "replay") return JSON.stringify(completeReplayWork(response.work));
  throw new Error(`not a replay: ${JSON.stringify(response)}`);
}

const asGiven = (response: CommandResponse): string => {
  const reply = response.reply;
  return JSON.stringify(reply.ok ? { ok: true, json: reply.json } : { ok: false, code: reply.code, message: reply.message });
};

describe("old replies on a journal without a view", () => {
  it("read the market's payloads once for the replies asked together and for those asked after, byte for byte as given", async () => {
    const dir = tempDir("old-replies");
    cleanups.push(dir.cleanup);
    const { journal, entriesRead } = streamLike(FileJournal.open({ dir: dir.dir }));
    // No reply kept: every old reply is replayed from the log.
    const core = (await ShardCore.open({ journal, shardIndex: 0, clock: new ManualClock(T0), replyCacheEntries: 0 })).core;
    cleanups.push(() => void core.close());
    const given: CommandResponse[] = [];
    const run = async (requests: ShardRequest[]): Promise<void> => {
      for (const response of await core.processBatch(requests)) given.push(response as CommandResponse);
    };
    await run([request(commands.create("alice", "m", directClaim({ capacity: 30, pricing: { mode: "free" }, confirmation: "none" }))), request(commands.publish("alice", "m"))]);
    for (let batch = 0; batch < 4; batch++) await run(claims("m", batch * 10, 10));
    const claimed = given.slice(2);

    const before = entriesRead();
    const together = await core.processBatch(claimed.map((response) => ({ kind: "reply-at", position: response.position })));
    const readTogether = entriesRead() - before;
    together.forEach((response, i) => expect(replyOf(response), `claim ${i}`).toContain(asGiven(claimed[i] as CommandResponse).slice(1, -1)));
    // Each reply's own frame, then one pass over the log from the market's first command to its last
    // (after reading those two): not one pass per reply.
    expect(readTogether).toBeLessThanOrEqual(claimed.length + given.length + 2);

    const after = entriesRead();
    const again = await core.processBatch([{ kind: "reply-at", position: (claimed[5] as CommandResponse).position }]);
    expect(replyOf(again[0])).toContain(asGiven(claimed[5] as CommandResponse).slice(1, -1));
    expect(entriesRead() - after).toBe(1); // its own frame only
    // Let go at the next snapshot: read again after it.
    await core.snapshot();
    const afterSnapshot = entriesRead();
    await core.processBatch([{ kind: "reply-at", position: (claimed[5] as CommandResponse).position }]);
    expect(entriesRead() - afterSnapshot).toBeGreaterThan(given.length);

    // A command logged after the kept read: read again, to the market's end.
    await run([request(commands.create("bob", "n", directClaim({ capacity: 5, pricing: { mode: "free" }, confirmation: "none" }))), request(commands.publish("bob", "n"))]);
    await run(claims("m", 40, 1));
    const later = given[given.length - 1] as CommandResponse;
    const beforeLatest = entriesRead();
    const latest = await core.processBatch([{ kind: "reply-at", position: later.position }]);
    expect(replyOf(latest[0])).toContain(asGiven(later).slice(1, -1));
    expect(entriesRead() - beforeLatest).toBeGreaterThan(given.length - 3);

    // Two markets asked for in turn, in one batch: one read of each, shared by that market's replies.
    const ofN = given.slice(given.length - 3, given.length - 1);
    const beforeTwo = entriesRead();
    const both = await core.processBatch([later, ...ofN, claimed[7] as CommandResponse].map((response) => ({ kind: "reply-at", position: response.position })));
    expect(both).toHaveLength(4);
    // Each reply's own frame; then n's first and last command and one pass over its two. The read of
    // m kept from before serves both of m's, though n's was started between them.
    expect(entriesRead() - beforeTwo).toBeLessThanOrEqual(4 + 2 + 2);
    for (const [i, response] of [later, ...ofN, claimed[7] as CommandResponse].entries()) expect(replyOf(both[i])).toContain(asGiven(response).slice(1, -1));
  });
});
