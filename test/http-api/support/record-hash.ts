/** The record hash recomputed by the test: RFC 8785 canonical JSON, SHA-256, `sha256:<hex>`. */
import canonicalize from "canonicalize";
import { createHash } from "node:crypto";

export function recordHashOf(record: { market: unknown; commands: unknown; commitments: unknown; events: unknown }): string {
  const text = canonicalize({ market: record.market, commands: record.commands, commitments: record.commitments, events: record.events });
  if (text === undefined) throw new Error("canonicalize returned undefined");
  return `sha256:${createHash("sha256").update(text, "utf8").digest("hex")}`;
}
