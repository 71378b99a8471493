/**
 * A stream export ("JSX1"): the messages of a journal stream in one file, so that a partition can be
 * audited (`replay`, `verify --stream-export`) away from its cluster, and archived. The file says
 * what it holds; every part of it is covered by a CRC-32C, so a damaged byte is found and named
 * (the messages' own hash chain, checked by the audit, is what shows an entry edited with care).
 *
 * Layout (all little-endian):
 *
 *   preamble  "JSX1" · u32 header length H · u32 CRC-32C of the header · header (H bytes, UTF-8 JSON)
 *   records   one per message, in stream order, firstStreamSequence … lastStreamSequence, no gaps:
 *               u32 body length B · u32 CRC-32C of the rest of the record ·
 *               f64 stream sequence · u16 message id length I · message id (I bytes, UTF-8) ·
 *               body (B bytes: the message as the stream stores it, a JSB2 batch)
 *
 * The file ends right after the last record. The header:
 *
 *   { "format": "market-service stream export", "version": 1, "stream": "partition-3",
 *     "subject": "journal.partition-3", "batchFormat": "JSB2", "firstStreamSequence": 1,
 *     "lastStreamSequence": 812, "messages": 812, "exportedAt": "2026-…Z" }
 *
 * The writer writes `<file>.partial`, fsyncs it and links it to `<file>` only when complete (an
 * existing file is never overwritten), so a file of that name is a whole export.
 */
import { closeSync, fstatSync, fsyncSync, linkSync, openSync, readSync, unlinkSync, writeSync } from "node:fs";
import { crc32c } from "../../storage/crc32c.js";
import type { StreamMessage } from "./jetstream-stream-reader.js";

const MAGIC = "JSX1";
const PREAMBLE_BYTES = 12;
/** Body length and CRC. */
const RECORD_PREFIX_BYTES = 8;
/** Stream sequence and message id length: the CRC covers these, the id and the body. */
const RECORD_FIXED_BYTES = 8 + 2;
const FORMAT_NAME = "market-service stream export";
const FORMAT_VERSION = 1;
/** Bounds a corrupt length can announce: a message is at most NATS' max_payload (64 MiB at most). */
const MAX_BODY_BYTES = 64 * 1024 * 1024;
const MAX_HEADER_BYTES = 64 * 1024;
const WRITE_BUFFER_BYTES = 1024 * 1024;

export interface StreamExportHeader {
  readonly format: typeof FORMAT_NAME;
  readonly version: typeof FORMAT_VERSION;
  readonly stream: string;
  readonly subject: string;
  readonly batchFormat: "JSB2";
  readonly firstStreamSequence: number;
  /** firstStreamSequence − 1 for an export of an empty stream. */
  readonly lastStreamSequence: number;
  readonly messages: number;
  readonly exportedAt: string;
}

/** A damaged or incomplete export, named by its file, the byte offset and (when known) the message. */
export class StreamExportDamagedError extends Error {
  override name = "StreamExportDamagedError";
  constructor(
    readonly file: string,
    readonly offset: number,
    detail: string,
  ) {
    super(`export file ${file}, byte offset ${offset}: ${detail}`);
  }
}

export function exportHeader(stream: string, firstStreamSequence: number, lastStreamSequence: number, exportedAt: string): StreamExportHeader {
  return {
    format: FORMAT_NAME,
    version: FORMAT_VERSION,
    stream,
    subject: `journal.${stream}`,
    batchFormat: "JSB2",
    firstStreamSequence,
    lastStreamSequence,
    messages: lastStreamSequence - firstStreamSequence + 1,
    exportedAt,
  };
}

/** Writes an export: `add` each message in order, then `finish`; `abandon` removes what was written. */
export class StreamExportWriter {
  private readonly buffer = Buffer.allocUnsafe(WRITE_BUFFER_BYTES);
  private used = 0;
  private written = 0;
  private next: number;
  private closed = false;

  private constructor(
    private readonly file: string,
    private readonly partial: string,
    private readonly fd: number,
    private readonly header: StreamExportHeader,
  ) {
    this.next = header.firstStreamSequence;
  }

  /** Starts `<file>.partial` (refused if it exists: another export may be writing it). */
  static create(file: string, header: StreamExportHeader): StreamExportWriter {
    const partial = `${file}.partial`;
    const fd = openSync(partial, "wx", 0o644);
    const writer = new StreamExportWriter(file, partial, fd, header);
    const json = Buffer.from(JSON.stringify(header), "utf8");
    const preamble = Buffer.alloc(PREAMBLE_BYTES);
    preamble.write(MAGIC, 0, "latin1");
    preamble.writeUInt32LE(json.length, 4);
    preamble.writeUInt32LE(crc32c(json), 8);
    writer.put(preamble);
    writer.put(json);
    return writer;
  }

  add(message: StreamMessage): void {
    if (message.streamSequence !== this.next) throw new Error(`export of ${this.header.stream}: message ${message.streamSequence} handed over where ${this.next} was due`);
    if (message.streamSequence > this.header.lastStreamSequence) throw new Error(`export of ${this.header.stream}: message ${message.streamSequence} is past the announced last ${this.header.lastStreamSequence}`);
    const id = Buffer.from(message.msgId, "utf8");
    if (id.length > 0xffff) throw new RangeError(`message ${message.streamSequence}'s id is ${id.length} bytes, more than an export record holds`);
    const record = Buffer.allocUnsafe(RECORD_PREFIX_BYTES + RECORD_FIXED_BYTES + id.length + message.data.length);
    record.writeUInt32LE(message.data.length, 0);
    record.writeDoubleLE(message.streamSequence, 8);
    record.writeUInt16LE(id.length, 16);
    id.copy(record, 18);
    record.set(message.data, 18 + id.length);
    record.writeUInt32LE(crc32c(record.subarray(RECORD_PREFIX_BYTES)), 4);
    this.put(record);
    this.next += 1;
  }

  /** Flushes, fsyncs, and publishes the file under its name; resolves with its size in bytes. */
  finish(): number {
    if (this.next !== this.header.lastStreamSequence + 1) {
      throw new Error(`export of ${this.header.stream}: ${this.next - this.header.firstStreamSequence} messages written, ${this.header.messages} announced`);
    }
    this.flush();
    fsyncSync(this.fd);
    closeSync(this.fd);
    this.closed = true;
    linkSync(this.partial, this.file);
    unlinkSync(this.partial);
    return this.written;
  }

  /** Closes and removes the partial file (after a failure). */
  abandon(): void {
    if (!this.closed) closeSync(this.fd);
    this.closed = true;
    try {
      unlinkSync(this.partial);
    } catch {
      // already gone
    }
  }

  private put(bytes: Uint8Array): void {
    if (this.used + bytes.length > this.buffer.length) this.flush();
    if (bytes.length > this.buffer.length) {
      this.writeAll(bytes);
      return;
    }
    this.buffer.set(bytes, this.used);
    this.used += bytes.length;
  }

  private flush(): void {
    this.writeAll(this.buffer.subarray(0, this.used));
    this.used = 0;
  }

  private writeAll(bytes: Uint8Array): void {
    let done = 0;
    while (done < bytes.length) done += writeSync(this.fd, bytes, done, bytes.length - done);
    this.written += bytes.length;
  }
}

/**
 * Reads an export: its header at open, then every message in order (`messages`), checking each
 * record's CRC and sequence and that the file ends where the header says; `body` reads a message
 * again by stream sequence once `messages` has passed it.
 */
export class StreamExportReader {
  /** Byte offset of each message's record, by stream sequence − firstStreamSequence (filled by `messages`). */
  private readonly offsets: number[] = [];

  private constructor(
    readonly file: string,
    private readonly fd: number,
    private readonly size: number,
    readonly header: StreamExportHeader,
    private readonly recordsStart: number,
  ) {}

  static open(file: string): StreamExportReader {
    const fd = openSync(file, "r");
    try {
      const size = fstatSync(fd).size;
      const damaged = (offset: number, detail: string): StreamExportDamagedError => new StreamExportDamagedError(file, offset, detail);
      const preamble = readExactly(fd, 0, PREAMBLE_BYTES, size);
      if (preamble === undefined || preamble.toString("latin1", 0, 4) !== MAGIC) throw damaged(0, `not a stream export (no ${MAGIC} magic)`);
      const headerBytes = preamble.readUInt32LE(4);
      if (headerBytes > MAX_HEADER_BYTES) throw damaged(4, `announces a header of ${headerBytes} bytes`);
      const json = readExactly(fd, PREAMBLE_BYTES, headerBytes, size);
      if (json === undefined) throw damaged(PREAMBLE_BYTES, "the file ends inside its header");
      if (crc32c(json) !== preamble.readUInt32LE(8)) throw damaged(PREAMBLE_BYTES, "the header fails its CRC");
      const header = parseHeader(json.toString("utf8"), (detail) => damaged(PREAMBLE_BYTES, detail));
      return new StreamExportReader(file, fd, size, header, PREAMBLE_BYTES + headerBytes);
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }

  /** Hands every message to `onMessage` in order; a damaged record throws StreamExportDamagedError naming it. */
  messages(onMessage: (message: StreamMessage) => void): void {
    const { firstStreamSequence, lastStreamSequence } = this.header;
    let offset = this.recordsStart;
    this.offsets.length = 0;
    for (let expected = firstStreamSequence; expected <= lastStreamSequence; expected++) {
      const record = this.recordAt(offset, expected);
      this.offsets.push(offset);
      onMessage(record.message);
      offset = record.end;
    }
    if (offset !== this.size) {
      throw new StreamExportDamagedError(this.file, offset, `${this.size - offset} bytes after the last announced message (${lastStreamSequence})`);
    }
  }

  /** The body of message `streamSequence` (after `messages` has read past it). */
  body(streamSequence: number): Uint8Array {
    const offset = this.offsets[streamSequence - this.header.firstStreamSequence];
    if (offset === undefined) throw new RangeError(`export file ${this.file}: message ${streamSequence} has not been read`);
    return this.recordAt(offset, streamSequence).message.data;
  }

  close(): void {
    closeSync(this.fd);
  }

  private recordAt(offset: number, expected: number): { message: StreamMessage; end: number } {
    const damaged = (detail: string): StreamExportDamagedError => new StreamExportDamagedError(this.file, offset, `the record of message ${expected}: ${detail}`);
    const prefix = readExactly(this.fd, offset, RECORD_PREFIX_BYTES + RECORD_FIXED_BYTES, this.size);
    if (prefix === undefined) throw damaged(`the file ends before it (the header announces messages through ${this.header.lastStreamSequence})`);
    const bodyBytes = prefix.readUInt32LE(0);
    if (bodyBytes > MAX_BODY_BYTES) throw damaged(`announces a body of ${bodyBytes} bytes`);
    const idBytes = prefix.readUInt16LE(16);
    const covered = readExactly(this.fd, offset + RECORD_PREFIX_BYTES, RECORD_FIXED_BYTES + idBytes + bodyBytes, this.size);
    if (covered === undefined) throw damaged("the file ends inside it");
    if (crc32c(covered) !== prefix.readUInt32LE(4)) throw damaged("it fails its CRC (the file is damaged)");
    const streamSequence = covered.readDoubleLE(0);
    if (streamSequence !== expected) throw damaged(`it holds message ${streamSequence}`);
    const msgId = covered.toString("utf8", RECORD_FIXED_BYTES, RECORD_FIXED_BYTES + idBytes);
    const data = covered.subarray(RECORD_FIXED_BYTES + idBytes);
    return { message: { streamSequence, msgId, data }, end: offset + RECORD_PREFIX_BYTES + covered.length };
  }
}

/** `length` bytes at `position`, or undefined if the file ends first. */
function readExactly(fd: number, position: number, length: number, size: number): Buffer | undefined {
  if (position + length > size) return undefined;
  const bytes = Buffer.allocUnsafe(length);
  let done = 0;
  while (done < length) {
    const read = readSync(fd, bytes, done, length - done, position + done);
    if (read === 0) return undefined;
    done += read;
  }
  return bytes;
}

function parseHeader(text: string, damaged: (detail: string) => Error): StreamExportHeader {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw damaged("its header is not JSON");
  }
  const header = value as Partial<Record<keyof StreamExportHeader, unknown>>;
  if (typeof value !== "object" || value === null || header.format !== FORMAT_NAME) throw damaged(`its header does not name the format "${FORMAT_NAME}"`);
  if (header.version !== FORMAT_VERSION) throw damaged(`it is version ${String(header.version)} of the format; this build reads version ${FORMAT_VERSION}`);
  if (header.batchFormat !== "JSB2") throw damaged(`its messages are ${String(header.batchFormat)} batches; this build reads JSB2`);
  const first = header.firstStreamSequence;
  const last = header.lastStreamSequence;
  if (typeof header.stream !== "string" || !/^[A-Za-z0-9_-]+$/.test(header.stream)) throw damaged("its header names no stream");
  if (typeof first !== "number" || typeof last !== "number" || !Number.isSafeInteger(first) || !Number.isSafeInteger(last) || first < 1 || last < first - 1 || header.messages !== last - first + 1) {
    throw damaged(`its header's message range is impossible (${String(first)}…${String(last)}, ${String(header.messages)} messages)`);
  }
  return {
    format: FORMAT_NAME,
    version: FORMAT_VERSION,
    stream: header.stream,
    subject: typeof header.subject === "string" ? header.subject : `journal.${header.stream}`,
    batchFormat: "JSB2",
    firstStreamSequence: first,
    lastStreamSequence: last,
    messages: last - first + 1,
    exportedAt: typeof header.exportedAt === "string" ? header.exportedAt : "",
  };
}
