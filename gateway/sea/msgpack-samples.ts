/**
 * Values the single binary's self-check round-trips through msgpackr. Inside the binary msgpackr
 * cannot load its optional native string extractor (`msgpackr-extract`) and decodes in pure JS; the
 * binary test packs the same values with the normal install (native extractor on) and compares
 * digests. The strings cover what the extractor special-cases: many short strings in one message,
 * ASCII and multi-byte UTF-8, lengths around the 8/16/32/64/256/65536 boundaries.
 */
import { createHash } from "node:crypto";
import type { Packr } from "msgpackr";
import { buildCommand, buildIdentity } from "../../engine/rules/types/command-layout.js";
import { loggedCommand } from "../../engine/log/logged-command.js";

function text(length: number, alphabet: string): string {
  const chars = [...alphabet];
  let out = "";
  for (let i = 0; out.length < length; i += 1) out += chars[(i * 7 + length) % chars.length] as string;
  return out;
}

export function msgpackSamples(): unknown[] {
  const samples: unknown[] = [];
  const lengths = [0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 255, 256, 257, 1000, 4096, 65535, 65536, 70000];
  for (const length of lengths) {
    samples.push(text(length, "abcdefghijklmnopqrstuvwxyz0123456789-_"));
    samples.push(text(length, "aé日本語😀ß€\u0000\u007f\u0080\u07ff\u0800\uffff"));
  }
  // Many strings in one message: the native path decodes them in one batch.
  samples.push(Array.from({ length: 500 }, (_, i) => text(i % 40, "market-claim-alice-bob-ünïcødé-🙂")));
  samples.push(
    Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`key-${i}-${text(i % 9, "xyzé")}`, { v: text(i % 70, "01234abcdé"), n: i, neg: -1 - i, f: i / 8 }])),
  );
  // A claim's log frame, as the service builds it (the declared layouts).
  const claim = buildCommand("direct_claim.submit", {
    marketId: "table-7",
    expectedVersion: 0,
    commandId: "k1",
    identity: buildIdentity({ principalId: "bob", actorId: "bob" }),
    occurredAtMs: 1_795_000_000_123,
  });
  samples.push(loggedCommand(claim, "Bq3JcK2oX0sYf1mZ2rDqW8u3pQ9hN5tLzVb7eR4aGkE", undefined));
  samples.push([0, 1, -1, 31, 32, 127, 128, 255, 256, -32, -33, -128, -129, 65535, 65536, -32768, -32769, 2 ** 31, -(2 ** 31), 2 ** 32, 2 ** 53 - 1, -(2 ** 53 - 1)]);
  samples.push([0.5, -0.25, 1e-300, 1.7976931348623157e308, Math.PI, true, false, null]);
  samples.push({ nested: [[[], {}], [{ a: [1, { b: "c" }] }]], empty: "", unicodeKey: { "clé-日本": "välue" } });
  return samples;
}

/** SHA-256 (hex) of every sample packed with `packr`, in order, each prefixed by its length. */
export function packedDigest(packr: Packr, samples: readonly unknown[]): string {
  const hash = createHash("sha256");
  for (const sample of samples) {
    const bytes = packr.pack(sample);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(bytes.length);
    hash.update(length).update(bytes);
  }
  return hash.digest("hex");
}
