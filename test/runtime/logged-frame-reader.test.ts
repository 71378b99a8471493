/**
 * The log frame reader (engine/log/logged-frame-reader.ts, decision I15) reads frames by the
 * declared layouts; msgpackr (with `restorePackedCommand`) is the reference. For frames of every
 * command type and every presence variant of every optional member, built by the service's own
 * builders from the declarations and encoded by `encodeLoggedCommand`, both decode to the same
 * value with members in the same order, and the reader reads every such frame whose strings it
 * reads (ASCII, under 64 KiB).
 */
import { cpSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { fc, test } from "@fast-check/vitest";
import { Packr } from "msgpackr";
import { describe, expect, it } from "vitest";
import { shardDirectories } from "../../engine/replay/audit-replay.js";
import { ManualClock } from "../../engine/clock.js";
import { COMMAND_TYPES } from "@market-service/client/wire";
import { COMMAND_LAYOUTS } from "../../engine/rules/types/command-layout.js";
import { presenceVariants } from "../../engine/rules/types/layout.js";
import { readLoggedCommand } from "../../engine/log/logged-frame-reader.js";
import { decodeLoggedCommand, encodeLoggedCommand, packableCommand, restorePackedCommand, type LoggedCommand } from "../../engine/log/logged-command.js";
import { openFileShard } from "../../engine/runtime/shard-core.js";
import { buildMarketCommand } from "../../gateway/api/market-api.js";
import { SegmentLog } from "../../storage/index.js";
import { FIXTURE_DIR } from "../compat/fixture.js";
import { frameSample, frameVariants } from "./layout-samples.js";
import { commands, directClaim, request, T0, tempDir } from "./support.js";

/** The general decoder every frame went through before the reader (and still the reference). */
const reference = new Packr({ useRecords: false, moreTypes: false });
function referenceDecode(bytes: Uint8Array): LoggedCommand {
  const value = reference.unpack(bytes) as LoggedCommand;
  restorePackedCommand(value.c);
  return value;
}

/** Equal, members in the same order (records and fingerprints are built from these objects). */
function expectSame(actual: unknown, expected: unknown): void {
  expect(actual).toStrictEqual(expected);
  expect(JSON.stringify(actual)).toBe(JSON.stringify(expected));
}

/** Whether every string the frame packs is one the reader reads: ASCII, fewer than 2^16 bytes. */
function readableStrings(value: unknown): boolean {
  if (typeof value === "string") return value.length < 65_536 && /^[\x00-\x7f]*$/.test(value);
  if (value === null || typeof value !== "object") return true;
  return Object.values(value).every(readableStrings);
}

describe("the log frame reader, against msgpackr, on frames built from the declared layouts", () => {
  for (const type of COMMAND_TYPES) {
    test.prop([frameSample(type)], { numRuns: 40 })(`${type}: every presence variant decodes as msgpackr decodes it`, (sample) => {
      const seen = new Set<string>();
      for (const entry of frameVariants(type, sample)) {
        seen.add(Object.keys(entry.c).join(","));
        const bytes = encodeLoggedCommand(entry);
        const expected = referenceDecode(bytes);
        expectSame(decodeLoggedCommand(bytes), expected);
        const read = readLoggedCommand(bytes);
        if (read !== undefined) expectSame(read, expected);
        if (readableStrings({ ...entry, c: packableCommand(entry.c) })) expect(read, JSON.stringify(entry)).toBeDefined();
      }
      // Every presence variant of the command's own members was among them.
      expect([...seen].sort()).toEqual(presenceVariants(COMMAND_LAYOUTS[type].members).map((names) => names.join(",")).sort());
    });
  }

  test.prop([fc.constantFrom(...COMMAND_TYPES).chain((type) => frameSample(type).map((sample) => ({ type, sample }))), fc.nat(), fc.nat({ max: 255 })], {
    numRuns: 300,
  })("never throws on a cut or changed frame, and what it does read is what msgpackr reads", ({ type, sample }, at, byte) => {
    const variants = frameVariants(type, sample);
    const bytes = encodeLoggedCommand(variants[at % variants.length] as LoggedCommand);
    const cut = at % bytes.length;
    expect(readLoggedCommand(bytes.subarray(0, cut))).toBeUndefined();
    const changed = Buffer.from(bytes);
    changed[cut] = byte;
    const read = readLoggedCommand(changed);
    if (read === undefined) return;
    let expected: unknown;
    try {
      expected = referenceDecode(changed);
    } catch {
      expect.unreachable(`the reader accepted bytes msgpackr refuses (offset ${cut}, byte ${byte})`);
    }
    expectSame(read, expected);
  });
});

describe("the log frame reader on frames the service writes", () => {
  it("takes only Buffers (the log's frames); another Uint8Array goes to msgpackr", () => {
    const bytes = encodeLoggedCommand({ v: 1, f: "fp", c: commands.claim("alice", "m") });
    expect(readLoggedCommand(bytes)).toBeDefined();
    const plain = Uint8Array.from(bytes);
    expect(readLoggedCommand(plain)).toBeUndefined();
    expect(decodeLoggedCommand(plain)).toStrictEqual(referenceDecode(bytes));
  });

  it("reads the actor's own string when it has the principal's length but other bytes", () => {
    const claim = buildMarketCommand("direct_claim.submit", "abd", "m", { commandId: "c", principalId: "abc", authorityRef: "d-1" });
    const read = readLoggedCommand(encodeLoggedCommand({ v: 1, f: "fp", c: claim }));
    expect(read?.c.identity).toStrictEqual({ principalId: "abc", actorId: "abd", authorityRef: "d-1" });
  });

  it("reads every frame a shard writes for commands from the gateway's builder, as msgpackr does", async () => {
    const { dir, cleanup } = tempDir("frame-reader");
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
        buildMarketCommand("direct_claim.submit", "agent", "hot", { commandId: "c-5", principalId: "frank", authorityRef: "d-1" }, {
          code: "actor_not_authorized",
          message: "delegation d-1 was not found",
        }),
      ];
      await core.processBatch(claims.map((command) => request(command)));
      core.close();
      const log = SegmentLog.open({ dir });
      const read: string[] = [];
      for (const frame of log.frames(0, { verify: "none" })) {
        const fast = readLoggedCommand(frame.payload);
        expect(fast, `frame at ${frame.position}`).toBeDefined();
        expectSame(fast, referenceDecode(frame.payload));
        read.push(fast?.c.commandId ?? "");
      }
      log.close();
      // Accepted (c-1), refused by version (c-2), by capacity (c-3), on a missing market (its
      // rejection in the frame: `r`), and by the authority check (`authorityRejection`, an `authorityRef`).
      expect(read.slice(2)).toEqual(["c-1", "c-2", "c-3", "c-4", "c-5"]);
    } finally {
      cleanup();
    }
  });

  it("reads the frames of a log written by older code (test/compat/fixture-log) as msgpackr does", () => {
    const dataDir = path.join(mkdtempSync(path.join(tmpdir(), "frame-reader-fixture-")), "data");
    cpSync(path.join(FIXTURE_DIR, "data"), dataDir, { recursive: true });
    let fast = 0;
    let frames = 0;
    for (const { dir } of shardDirectories(dataDir)) {
      const log = SegmentLog.open({ dir });
      try {
        for (const frame of log.frames(0, { verify: "none" })) {
          const expected = referenceDecode(frame.payload);
          const read = readLoggedCommand(frame.payload);
          frames += 1;
          if (read === undefined) {
            // Only frames with a string the reader leaves to msgpackr (the fixture's subjects are not ASCII).
            expect(readableStrings({ ...expected, c: packableCommand(expected.c) }), JSON.stringify(expected)).toBe(false);
            continue;
          }
          expectSame(read, expected);
          fast += 1;
        }
      } finally {
        log.close();
      }
    }
    expect(frames).toBeGreaterThan(25);
    expect(fast).toBeGreaterThan(frames / 2);
  });
});
