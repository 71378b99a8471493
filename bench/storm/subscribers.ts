/**
 * The 1,000 subscribers of the events storm (run-storm.ts `--scenario events`), in a process of
 * their own: one fetch stream each on one market's live events from its first event (`after=0`),
 * read with the client's SSE parser. Every tenth subscribes with the market creator's token and
 * sees the record's events; the others with a participant's token, and see the public views.
 *
 * Each subscriber keeps a SHA-256 over what it received, in order (`sequence`, then the event's
 * JSON text), and the count: the parent computes the same from the market's record once the storm
 * is over, so a missing, repeated, reordered or altered event shows as a mismatch.
 *
 *   node --import tsx bench/storm/subscribers.ts <url> <marketId> <tokensFile> <creatorToken> <count>
 * Prints `ready` once every stream delivered its open frame. Then reads one line from stdin, the
 * expectation as JSON ({creator: {last, count, sha256}, public: {...}}), waits (bounded) until every
 * subscriber has received up to its view's last sequence, and prints the result as JSON.
 */
import { createHash, type Hash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { SseParser } from "../../packages/client/src/sse-parser.js";

const [url, marketId, tokensFile, creatorToken, countText] = process.argv.slice(2);
if (url === undefined || marketId === undefined || tokensFile === undefined || creatorToken === undefined || countText === undefined) {
  throw new Error("usage: subscribers.ts <url> <marketId> <tokensFile> <creatorToken> <count>");
}
const count = Number(countText);
const tokens = readFileSync(tokensFile, "utf8").split("\n").filter((line) => line !== "").map((line) => line.split(" ")[1] as string);
// Node's fetch opens a connection per concurrent request to one origin (no per-origin cap by default).

interface Subscriber {
  creator: boolean;
  hash: Hash;
  received: number;
  last: number;
  opened: boolean;
  ended: string | undefined;
}

const subscribers: Subscriber[] = [];
const WAIT_MS = 120_000;

async function follow(subscriber: Subscriber, token: string): Promise<void> {
  const response = await fetch(`${url}/v1/markets/${encodeURIComponent(marketId as string)}/events?after=0`, { headers: { authorization: `Bearer ${token}`, accept: "text/event-stream" } });
  if (response.status !== 200 || response.body === null) {
    subscriber.ended = `HTTP ${response.status}`;
    return;
  }
  const parser = new SseParser();
  const decoder = new TextDecoder();
  for await (const chunk of response.body) {
    for (const frame of parser.push(decoder.decode(chunk, { stream: true }))) {
      if (frame.event === "open") subscriber.opened = true;
      else if (frame.event === "market-event") {
        const sequence = Number(frame.lastEventId);
        subscriber.hash.update(`${sequence}\n${frame.data}\n`);
        subscriber.received += 1;
        subscriber.last = sequence;
      } else if (frame.event === "overflow" || frame.event === "end") {
        subscriber.ended = `${frame.event}: ${frame.data}`;
      }
    }
  }
  subscriber.ended ??= "the stream ended";
}

for (let i = 0; i < count; i += 1) {
  const creator = i % 10 === 0;
  const subscriber: Subscriber = { creator, hash: createHash("sha256"), received: 0, last: 0, opened: false, ended: undefined };
  subscribers.push(subscriber);
  void follow(subscriber, creator ? creatorToken : (tokens[i % tokens.length] as string)).catch((error: unknown) => {
    subscriber.ended = `failed: ${error instanceof Error ? `${error.message} ${String((error as { cause?: unknown }).cause ?? "")}` : String(error)}`;
  });
}

const startedMs = Date.now();
while (subscribers.some((s) => !s.opened && s.ended === undefined) && Date.now() - startedMs < WAIT_MS) await new Promise((resolve) => setTimeout(resolve, 50));
process.stdout.write(`ready ${subscribers.filter((s) => s.opened).length}\n`);

interface Expected {
  last: number;
  count: number;
  sha256: string;
}
const line = await new Promise<string>((resolve) => createInterface({ input: process.stdin }).once("line", resolve));
const expected = JSON.parse(line) as { creator: Expected; public: Expected };
const waitStarted = Date.now();
const behind = () => subscribers.filter((s) => s.ended === undefined && s.last < (s.creator ? expected.creator : expected.public).last);
while (behind().length > 0 && Date.now() - waitStarted < WAIT_MS) await new Promise((resolve) => setTimeout(resolve, 50));
const catchUpMs = Date.now() - waitStarted;
let complete = 0;
const problems: string[] = [];
subscribers.forEach((s, index) => {
  const want = s.creator ? expected.creator : expected.public;
  const digest = s.hash.digest("hex");
  if (s.received === want.count && digest === want.sha256 && s.ended === undefined) complete += 1;
  else if (problems.length < 10) problems.push(`subscriber ${index} (${s.creator ? "creator" : "public"}): ${s.received} of ${want.count} events, last ${s.last} of ${want.last}, ${digest === want.sha256 ? "same" : "different"} digest${s.ended === undefined ? "" : `, ended: ${s.ended}`}`);
});
const cpu = process.cpuUsage();
process.stdout.write(`${JSON.stringify({ subscribers: subscribers.length, complete, catchUpMs, problems, cpuSeconds: (cpu.user + cpu.system) / 1e6 })}\n`);
process.exit(0);
