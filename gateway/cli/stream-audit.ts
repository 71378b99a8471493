/**
 * The command line's stream audits (cluster mode, issue 27): `replay` and `verify` of a partition's
 * JetStream stream, live (`--nats <urls> --stream <name>`) or from an export file
 * (`--stream-export <file>`), and `export-stream`, which writes that file (format:
 * engine/journal/stream-export.ts). Loaded only when one of them runs, so the service and the
 * data-directory audits do not load the NATS client.
 *
 * The output is the data-directory audit's: one line per market on stdout (the stream's partition
 * stands where a shard's number does), the summary and what the stream showed (messages, owners'
 * claims, last epoch, chain head) on stderr; `--json` prints the result object on stdout.
 */
import { existsSync } from "node:fs";
import { exportedStream, replayStream, replayStreamMarketRecord, verifyStream, type AuditedStream, type StreamAuditOptions, type StreamFacts } from "../../engine/replay/stream-audit.js";
import { connectMessaging } from "../../engine/messaging/nats/nats-messaging.js";
import type { Messaging } from "../../engine/messaging/messaging.js";
import { LiveStream } from "../../engine/journal/jetstream-stream-source.js";
import { StreamExportReader, StreamExportWriter, exportHeader } from "../../engine/journal/stream-export.js";
import { auditSummary, printMarkets, printVerify } from "./audit-output.js";

/** Where a stream audit reads: a live stream, or an export file. */
export type StreamSourceChoice = { readonly kind: "live"; readonly servers: string[]; readonly stream: string } | { readonly kind: "export"; readonly file: string };

function describeFacts(facts: StreamFacts): string {
  return `stream ${facts.stream} (partition ${facts.partition}): ${facts.messages.toLocaleString("en-US")} message(s), ${facts.claims} owner claim(s), last epoch ${facts.lastEpoch}, chain head ${facts.chainHead}`;
}

async function connectTo(servers: string[]): Promise<Messaging> {
  try {
    return await connectMessaging(servers, "market-service audit");
  } catch (error) {
    throw new Error(`cannot connect to NATS at ${servers.join(",")}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Opens the source, runs `use` on it, and closes what it opened. */
async function withSource<T>(choice: StreamSourceChoice, use: (source: AuditedStream) => Promise<T>): Promise<T> {
  if (choice.kind === "export") {
    const reader = StreamExportReader.open(choice.file);
    try {
      return await use(exportedStream(reader));
    } finally {
      reader.close();
    }
  }
  const connection = await connectTo(choice.servers);
  try {
    const live = await LiveStream.open(connection, choice.stream);
    return await use({
      name: live.name,
      firstStreamSequence: live.firstStreamSequence,
      messages: (onMessage) => live.messages(onMessage),
      body: (streamSequence) => live.body(streamSequence),
      newestSnapshot: () => live.newestSnapshot(),
    });
  } finally {
    await connection.close();
  }
}

export async function replayFromStream(choice: StreamSourceChoice, options: { market?: string; json?: boolean }): Promise<void> {
  await withSource(choice, async (source) => {
    if (options.market !== undefined) {
      const record = await replayStreamMarketRecord(source, options.market);
      if (record === undefined) {
        process.stderr.write(`replay: no market ${JSON.stringify(options.market)} in stream ${source.name}\n`);
        process.exitCode = 1;
        return;
      }
      process.stdout.write(`${JSON.stringify(record, null, options.json === true ? undefined : 2)}\n`);
      return;
    }
    const result = await replayStream(source);
    if (options.json === true) process.stdout.write(`${JSON.stringify(result)}\n`);
    else printMarkets(result);
    process.stderr.write(`${auditSummary("replayed", result)}\n${describeFacts(result.stream)}\n`);
  });
}

export async function verifyFromStream(choice: StreamSourceChoice, options: { json?: boolean }, checks: Pick<StreamAuditOptions, "publicKeys" | "headInterval">): Promise<void> {
  await withSource(choice, async (source) => {
    const result = await verifyStream(source, checks);
    printVerify(result, options.json === true, describeFacts(result.stream));
  });
}

/** `export-stream`: the stream's messages up to its last one now, into `out` (never overwritten). */
export async function exportStream(options: { servers: string[]; stream: string; out: string }): Promise<void> {
  if (existsSync(options.out)) {
    process.stderr.write(`export-stream: ${options.out} exists; an export never overwrites a file: choose another --out\n`);
    process.exitCode = 1;
    return;
  }
  const connection = await connectTo(options.servers);
  try {
    const live = await LiveStream.open(connection, options.stream);
    const header = exportHeader(live.name, live.firstStreamSequence, live.lastStreamSequence, new Date().toISOString());
    const writer = StreamExportWriter.create(options.out, header);
    let bytes: number;
    try {
      await live.messages((message) => writer.add(message));
      bytes = writer.finish();
    } catch (error) {
      writer.abandon();
      throw error;
    }
    process.stderr.write(`exported ${header.messages.toLocaleString("en-US")} message(s) of stream ${header.stream} (stream sequences ${header.firstStreamSequence}…${header.lastStreamSequence}) to ${options.out} (${bytes.toLocaleString("en-US")} bytes)\n`);
  } finally {
    await connection.close();
  }
}
