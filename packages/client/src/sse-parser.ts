/**
 * An incremental parser of `text/event-stream` (the HTML standard's "event stream interpretation"),
 * small enough for a browser bundle: feed it decoded text as it arrives, in chunks of any size
 * (a line, or a CR LF pair, may be split between chunks), and it hands back each complete event.
 *
 * Lines end with CR LF, LF or CR. `data` lines are joined with LF; a blank line dispatches the event
 * (none when it has no data); a line starting with ":" is a comment (keep-alives); `id` sets the
 * last event id (an id containing NUL is ignored), which persists to later events; `retry` is kept
 * as advice. A leading byte order mark is dropped. Unknown fields are ignored.
 */

export interface ServerSentEvent {
  /** The `event` field, "message" when absent. */
  readonly event: string;
  readonly data: string;
  /** The last event id at dispatch ("" when none was ever set). */
  readonly lastEventId: string;
}

export class SseParser {
  private buffer = "";
  private started = false;
  /** The previous chunk ended with CR: an LF opening the next one belongs to that line end. */
  private pendingCr = false;
  private dataLines: string[] = [];
  private hasData = false;
  private eventType = "";
  private lastId = "";
  /** The last `retry` value (milliseconds), or undefined. */
  retryMs: number | undefined;

  /** The last event id seen so far (also one sent in a frame without data: a resume point alone). */
  get lastEventId(): string {
    return this.lastId;
  }

  /** Parses `chunk` and returns the events it completed, in order. */
  push(chunk: string): ServerSentEvent[] {
    let text = chunk;
    if (!this.started && text.length > 0) {
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    if (this.pendingCr) {
      this.pendingCr = false;
      if (text.startsWith("\n")) text = text.slice(1);
    }
    this.buffer += text;
    const events: ServerSentEvent[] = [];
    let start = 0;
    // Streams from this service never contain CR: then one indexOf per line finds its end.
    const hasCr = this.buffer.includes("\r");
    for (;;) {
      let end = this.buffer.indexOf("\n", start);
      if (hasCr) {
        const cr = this.buffer.indexOf("\r", start);
        if (cr >= 0 && (end < 0 || cr < end)) end = cr;
      }
      if (end < 0) break;
      const line = this.buffer.slice(start, end);
      if (this.buffer.charCodeAt(end) === 13) {
        if (end + 1 < this.buffer.length) {
          start = this.buffer.charCodeAt(end + 1) === 10 ? end + 2 : end + 1;
        } else {
          this.pendingCr = true;
          start = end + 1;
        }
      } else {
        start = end + 1;
      }
      const event = this.line(line);
      if (event !== undefined) events.push(event);
    }
    this.buffer = this.buffer.slice(start);
    return events;
  }

  private line(line: string): ServerSentEvent | undefined {
    if (line.length === 0) return this.dispatch();
    if (line.charCodeAt(0) === 58) return undefined; // ":" comment
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    switch (field) {
      case "data":
        this.dataLines.push(value);
        this.hasData = true;
        break;
      case "event":
        this.eventType = value;
        break;
      case "id":
        if (!value.includes("\u0000")) this.lastId = value;
        break;
      case "retry":
        if (/^[0-9]+$/.test(value)) this.retryMs = Number(value);
        break;
      default:
        break;
    }
    return undefined;
  }

  private dispatch(): ServerSentEvent | undefined {
    const hasData = this.hasData;
    const event: ServerSentEvent = { event: this.eventType === "" ? "message" : this.eventType, data: this.dataLines.join("\n"), lastEventId: this.lastId };
    this.dataLines = [];
    this.hasData = false;
    this.eventType = "";
    return hasData ? event : undefined;
  }
}
