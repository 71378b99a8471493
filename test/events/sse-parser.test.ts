/** The client's incremental text/event-stream parser (packages/client/src/sse-parser.ts). */
import { describe, expect, it } from "vitest";
import { SseParser, type ServerSentEvent } from "../../packages/client/src/sse-parser.js";

const STREAM = "\uFEFF: hello\r\nid: 7\r\nevent: market-event\r\ndata: {\"a\":1}\r\n\r\ndata: one\ndata: two\n\n: keep-alive\n\nid: 9\revent: open\rdata: {}\r\r";

function parseAll(chunks: readonly string[]): { events: ServerSentEvent[]; lastEventId: string } {
  const parser = new SseParser();
  const events = chunks.flatMap((chunk) => parser.push(chunk));
  return { events, lastEventId: parser.lastEventId };
}

describe("SseParser", () => {
  const expected: ServerSentEvent[] = [
    { event: "market-event", data: '{"a":1}', lastEventId: "7" },
    { event: "message", data: "one\ntwo", lastEventId: "7" },
    { event: "open", data: "{}", lastEventId: "9" },
  ];

  it("parses CR LF, LF and CR line ends, comments, multi-line data, a leading BOM, and keeps the last id", () => {
    expect(parseAll([STREAM])).toEqual({ events: expected, lastEventId: "9" });
  });

  it("gives the same events however the text is split, a CR LF pair split included", () => {
    for (let size = 1; size <= 7; size += 1) {
      const chunks: string[] = [];
      for (let at = 0; at < STREAM.length; at += size) chunks.push(STREAM.slice(at, at + size));
      expect(parseAll(chunks).events).toEqual(expected);
    }
    // A CR at the end of one chunk and its LF at the start of the next: one line end, not two.
    expect(parseAll(["data: x\r", "\n", "\r", "\n"]).events).toEqual([{ event: "message", data: "x", lastEventId: "" }]);
  });

  it("dispatches nothing without data, keeps an id sent alone, and ignores unknown fields and an id with NUL", () => {
    const parser = new SseParser();
    expect(parser.push("id: 5\n\nfoo: bar\nid: a\u0000b\ndata\n\n")).toEqual([{ event: "message", data: "", lastEventId: "5" }]);
    expect(parser.lastEventId).toBe("5");
    parser.push("retry: 1500\n\n");
    expect(parser.retryMs).toBe(1500);
  });
});
