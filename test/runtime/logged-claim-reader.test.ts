import { Packr } from "msgpackr";
import { describe, expect, it } from "vitest";
import type { Command } from "../../engine/rules/types/command.js";
import { ManualClock } from "../../engine/clock.js";
import { buildMarketCommand } from "../../gateway/market-api.js";
import { readLoggedClaim } from "../../engine/runtime/logged-claim-reader.js";
import { decodeLoggedCommand, encodeLoggedCommand, restorePackedCommand, type LoggedCommand } from "../../engine/runtime/logged-command.js";
import { openFileShard } from "../../engine/runtime/shard-core.js";
import { SegmentLog } from "../../storage/index.js";
import { commands, directClaim, request, T0, tempDir } from "./support.js";

/** The general decoder every frame went through before the claim reader (and still the reference). */
const reference = new Packr({ useRecords: false, moreTypes: false });
function referenceDecode(bytes: Uint8Array): LoggedCommand {
  const value = reference.unpack(bytes) as LoggedCommand;
  restorePackedCommand(value.c);
  return value;
}

const ids = ["p", "participant-3000", "x".repeat(31), "y".repeat(32), "z".repeat(128), "q".repeat(255), "r".repeat(256)];
const numbers = [0, 1, 127, 128, 255, 256, 65_535, 65_536, 2 ** 32 - 1, 2 ** 32, 1_772_366_400_001, Number.MAX_SAFE_INTEGER];

/**
 * A claim as the service logs it: built by the gateway's own builder (its member order), then
 * stamped by the shard (`occurredAtMs` replaced in place).
 */
function claim(n: number, overrides: Partial<Command> = {}): Command {
  const principalId = ids[n % ids.length] as string;
  const actorId = n % 4 === 0 ? `${principalId}-actor` : principalId;
  const body = { commandId: ids[(n * 3 + 1) % ids.length] as string, principalId, ...(n % 3 === 0 ? { expectedVersion: numbers[(n * 7) % numbers.length] } : {}) };
  const built = buildMarketCommand("direct_claim.submit", actorId, ids[(n * 5 + 2) % ids.length] as string, body as never);
  return { ...built, occurredAtMs: numbers[n % numbers.length] as number, ...overrides } as Command;
}

function frames(): { bytes: Buffer; fast: boolean }[] {
  const out: { bytes: Buffer; fast: boolean }[] = [];
  for (let n = 0; n < 200; n += 1) {
    const withFingerprint = n % 5 !== 0;
    const entry = (c: Command, r?: LoggedCommand["r"]): LoggedCommand => ({ v: 1, ...(withFingerprint ? { f: `fp-${n}` } : {}), c, ...(r === undefined ? {} : { r }) });
    out.push({ bytes: encodeLoggedCommand(entry(claim(n))), fast: true });
    // Shapes the reader leaves to msgpackr: they must still decode exactly.
    out.push({ bytes: encodeLoggedCommand(entry(claim(n, { identity: { principalId: "p", actorId: "a", authorityRef: "d-1" } }))), fast: false });
    out.push({ bytes: encodeLoggedCommand(entry(claim(n, { authorityRejection: { code: "authority_reference_required", message: "an authority reference is required" } }))), fast: false });
    out.push({ bytes: encodeLoggedCommand(entry(claim(n, { marketId: `märkte-${n}` }))), fast: false });
    out.push({ bytes: encodeLoggedCommand(entry(claim(n, { commandId: `\u{1F600}-${n}` }))), fast: false });
    out.push({ bytes: encodeLoggedCommand(entry(claim(n), { code: "market_not_found", message: "market was not found" })), fast: false });
    out.push({ bytes: encodeLoggedCommand(entry({ type: "market.publish", commandId: `p-${n}`, identity: { principalId: "c", actorId: "c" }, occurredAtMs: n, marketId: "m", expectedVersion: 1 })), fast: false });
  }
  return out;
}

describe("the direct-claim frame reader (decision I15)", () => {
  it("reads every claim frame the log writes exactly as msgpackr does, and leaves every other shape to it", async () => {
    for (const { bytes, fast } of frames()) {
      const expected = referenceDecode(bytes);
      const read = readLoggedClaim(bytes);
      expect(read !== undefined).toBe(fast);
      const decoded = decodeLoggedCommand(bytes);
      expect(decoded).toStrictEqual(expected);
      // Member order too: records and fingerprints are built from these objects.
      expect(JSON.stringify(decoded)).toBe(JSON.stringify(expected));
    }
  });

  it("never throws on a cut or changed frame, and what it does read is what msgpackr reads", async () => {
    const samples = frames().filter((frame) => frame.fast).slice(0, 20);
    for (const { bytes } of samples) {
      for (let cut = 0; cut < bytes.length; cut += 1) expect(readLoggedClaim(bytes.subarray(0, cut))).toBeUndefined();
      for (let at = 0; at < bytes.length; at += 1) {
        for (const value of [0x00, 0x7f, 0x80, 0xa0, 0xbf, 0xcb, 0xd9, 0xde, 0xff, (bytes[at] as number) ^ 0x01]) {
          const changed = Buffer.from(bytes);
          changed[at] = value;
          const read = readLoggedClaim(changed);
          if (read === undefined) continue;
          let expected: unknown;
          try {
            expected = reference.unpack(changed);
          } catch {
            expect.unreachable(`the reader accepted bytes msgpackr refuses (offset ${at}, byte ${value})`);
          }
          expect(read).toStrictEqual(expected);
          expect(JSON.stringify(read)).toBe(JSON.stringify(expected));
        }
      }
    }
  });

  it("takes only Buffers (the log's frames); another Uint8Array goes to msgpackr", async () => {
    const bytes = encodeLoggedCommand({ v: 1, f: "fp", c: claim(1) });
    expect(readLoggedClaim(bytes)).toBeDefined();
    const plain = Uint8Array.from(bytes);
    expect(readLoggedClaim(plain)).toBeUndefined();
    expect(decodeLoggedCommand(plain)).toStrictEqual(referenceDecode(bytes));
  });

  it("reads the actor's own string when it has the principal's length but other bytes", async () => {
    const bytes = encodeLoggedCommand({ v: 1, f: "fp", c: claim(1, { identity: { principalId: "abc", actorId: "abd" } }) });
    const read = readLoggedClaim(bytes);
    expect(read?.c.identity).toStrictEqual({ principalId: "abc", actorId: "abd" });
  });

  it("reads the claim frames a shard writes for commands from the gateway's own builder (a changed literal order would fall off the fast path)", async () => {
    const { dir, cleanup } = tempDir("claim-reader");
    try {
      const clock = new ManualClock(T0);
      const { core } = await openFileShard({ dir, shardIndex: 0, clock });
      await core.processBatch([request(commands.create("carol", "hot", directClaim({ capacity: 2, pricing: { mode: "free" }, confirmation: "none" })))]);
      await core.processBatch([request(commands.publish("carol", "hot"))]);
      clock.advance(1_000);
      const claims = [
        buildMarketCommand("direct_claim.submit", "alice", "hot", { commandId: "c-1", principalId: "alice" }),
        buildMarketCommand("direct_claim.submit", "bob", "hot", { commandId: "c-2", principalId: "bob", expectedVersion: 3 } as never),
        buildMarketCommand("direct_claim.submit", "dave", "hot", { commandId: "c-3", principalId: "dave" }),
        buildMarketCommand("direct_claim.submit", "erin", "nowhere", { commandId: "c-4", principalId: "erin" }),
        buildMarketCommand("direct_claim.submit", "agent", "hot", { commandId: "c-5", principalId: "frank", authorityRef: "d-1" }),
      ];
      await core.processBatch(claims.map((command) => request(command)));
      core.close();
      const log = SegmentLog.open({ dir });
      const fast: string[] = [];
      for (const frame of log.frames(0, { verify: "none" })) {
        const expected = referenceDecode(frame.payload);
        const read = readLoggedClaim(frame.payload);
        if (read !== undefined) {
          fast.push(read.c.commandId);
          expect(read).toStrictEqual(expected);
          expect(JSON.stringify(read)).toBe(JSON.stringify(expected));
        }
      }
      log.close();
      // Accepted (c-1), refused by version (c-2) and by capacity (c-3) read directly; a claim on a
      // missing market carries its rejection (`r`), a delegated one its authorityRef: msgpackr.
      expect(fast).toEqual(["c-1", "c-2", "c-3"]);
    } finally {
      cleanup();
    }
  });
});
