/**
 * The declared layouts (engine/rules/types/command-layout.ts, engine/log/logged-command-layout.ts)
 * are the member orders the service has always written, so new logs are byte for byte what earlier
 * versions wrote for the same commands (the log's hash chain covers these bytes):
 * - every frame of a log written by older code (test/compat/fixture-log) is rebuilt, from its
 *   decoded members handed over in another order, by the builders into exactly its bytes;
 * - the gateway's commands, in every presence variant, encode to the bytes of the object literals
 *   the gateway wrote before the layouts were declared;
 * - a record's `request` of every command type has its members in the order records always had.
 */
import { cpSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { recordedRequestOf } from "../../engine/rules/handle-command.js";
import { shardDirectories } from "../../engine/replay/audit-replay.js";
import type { Command } from "../../engine/rules/types/command.js";
import { buildCommand, buildIdentity, buildRejection } from "../../engine/rules/types/command-layout.js";
import type { Rejection } from "@market-service/client/wire";
import { decodeLoggedCommand, encodeLoggedCommand, loggedCommand } from "../../engine/log/logged-command.js";
import { buildMarketCommand, type MarketOperation } from "../../gateway/api/market-api.js";
import { SegmentLog } from "../../storage/index.js";
import { FIXTURE_DIR } from "./fixture.js";
import { anyCommand } from "../runtime/layout-samples.js";

/** A record's `request` body as earlier versions wrote it, by hand per command type (before it was derived). */
function handWrittenBody(command: Command): Record<string, unknown> {
  switch (command.type) {
    case "market.create_draft":
      return { commandId: command.commandId, marketId: command.marketId, subject: command.subject, mechanism: command.mechanism };
    case "market.publish":
      return { commandId: command.commandId, marketId: command.marketId, expectedVersion: command.expectedVersion };
    case "direct_claim.submit":
      return command.expectedVersion === undefined
        ? { commandId: command.commandId, marketId: command.marketId }
        : { commandId: command.commandId, marketId: command.marketId, expectedVersion: command.expectedVersion };
    case "sealed_auction.submit_bid":
      return { commandId: command.commandId, marketId: command.marketId, amountMinor: command.amountMinor, currency: command.currency };
    case "sealed_auction.resolve":
      return { commandId: command.commandId, marketId: command.marketId };
    case "commitment.confirm":
    case "commitment.decline":
    case "commitment.expire":
      return { commandId: command.commandId, commitmentId: command.commitmentId };
  }
}

/** The members of `value` in reverse order: whatever order the builders get, they write the declared one. */
function reversed<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).reverse()) as T;
}

function rebuilt(command: Command): Command {
  const fields = reversed({
    ...command,
    identity: buildIdentity(reversed(command.identity)),
    authorityRejection: command.authorityRejection === undefined ? undefined : buildRejection(reversed(command.authorityRejection)),
  }) as never;
  return buildCommand(command.type, fields);
}

describe("the declared layouts", () => {
  it("rebuild every frame of a log written by older code into exactly its bytes", () => {
    const dataDir = path.join(mkdtempSync(path.join(tmpdir(), "declared-layouts-")), "data");
    cpSync(path.join(FIXTURE_DIR, "data"), dataDir, { recursive: true });
    const shapes = new Set<string>();
    for (const { dir } of shardDirectories(dataDir)) {
      const log = SegmentLog.open({ dir });
      try {
        for (const frame of log.frames(0, { verify: "none" })) {
          const logged = decodeLoggedCommand(frame.payload);
          const r = logged.r === undefined ? undefined : buildRejection(reversed(logged.r));
          const bytes = encodeLoggedCommand(loggedCommand(rebuilt(logged.c), logged.f, r));
          expect(bytes.equals(Buffer.from(frame.payload)), `${logged.c.type} ${logged.c.commandId}`).toBe(true);
          shapes.add(`${logged.c.type}: ${Object.keys(logged.c).join(",")}; ${Object.keys(logged.c.identity).join(",")}`);
        }
      } finally {
        log.close();
      }
    }
    // Every command type, system commands, a delegated actor and an authority refusal among them.
    expect(new Set([...shapes].map((shape) => shape.slice(0, shape.indexOf(":")))).size).toBe(8);
    expect([...shapes].some((shape) => shape.includes("authorityRejection"))).toBe(true);
    expect([...shapes].some((shape) => shape.endsWith("authorityRef"))).toBe(true);
  });

  it("encode the gateway's commands, in every presence variant, to the bytes of the literals it wrote before", () => {
    const refusal: Rejection = { code: "actor_not_authorized", message: "no delegation" };
    const subject = { schema: "table.v1", data: { seats: 4, __proto__x: "kept" } };
    const mechanism = { presetId: "direct-claim.v1", config: { capacity: 1, pricing: { mode: "free" }, confirmation: "none" } };
    /** The gateway's literals before the layouts, member for member (its build, then the refusal assigned). */
    const before: Array<[MarketOperation, string, Record<string, unknown>, (identity: object) => Record<string, unknown>]> = [
      ["market.create_draft", "", { marketId: "m", subject, mechanism }, (identity) => ({ type: "market.create_draft", marketId: "m", subject, mechanism, commandId: "k", identity, occurredAtMs: 0 })],
      ["market.publish", "m", { expectedVersion: 1 }, (identity) => ({ type: "market.publish", marketId: "m", expectedVersion: 1, commandId: "k", identity, occurredAtMs: 0 })],
      ["direct_claim.submit", "m", {}, (identity) => ({ type: "direct_claim.submit", marketId: "m", commandId: "k", identity, occurredAtMs: 0 })],
      ["direct_claim.submit", "m", { expectedVersion: 0 }, (identity) => ({ type: "direct_claim.submit", marketId: "m", expectedVersion: 0, commandId: "k", identity, occurredAtMs: 0 })],
      ["sealed_auction.submit_bid", "m", { amountMinor: 500, currency: "EUR" }, (identity) => ({ type: "sealed_auction.submit_bid", marketId: "m", amountMinor: 500, currency: "EUR", commandId: "k", identity, occurredAtMs: 0 })],
      ["commitment.confirm", "c.bQ.1", {}, (identity) => ({ type: "commitment.confirm", commitmentId: "c.bQ.1", commandId: "k", identity, occurredAtMs: 0 })],
      ["commitment.decline", "c.bQ.1", {}, (identity) => ({ type: "commitment.decline", commitmentId: "c.bQ.1", commandId: "k", identity, occurredAtMs: 0 })],
    ];
    let variants = 0;
    for (const [operation, target, members, literal] of before) {
      for (const authorityRef of [undefined, "d-1"]) {
        for (const rejection of [undefined, refusal]) {
          const body = { commandId: "k", principalId: "p", ...(authorityRef === undefined ? {} : { authorityRef }), ...members };
          const built = buildMarketCommand(operation, "a", target, body, rejection);
          const identity = authorityRef === undefined ? { principalId: "p", actorId: "a" } : { principalId: "p", actorId: "a", authorityRef };
          const old = literal(identity);
          if (rejection !== undefined) old["authorityRejection"] = rejection;
          for (const f of ["AAAAAAAAAAAAAAAAAAAAAA", undefined]) {
            for (const r of [undefined, { code: "market_not_found", message: "market \"m\" was not found" } satisfies Rejection]) {
              // The shard's frame literals before the layouts: { v, c }, { v, c, r }, { v, f, c }, { v, f, c, r }.
              const oldFrame =
                f === undefined ? (r === undefined ? { v: 1, c: old } : { v: 1, c: old, r }) : r === undefined ? { v: 1, f, c: old } : { v: 1, f, c: old, r };
              const bytes = encodeLoggedCommand(loggedCommand(built, f, r === undefined ? undefined : buildRejection(r)));
              expect(bytes.equals(encodeLoggedCommand(oldFrame as never)), `${operation} ${JSON.stringify(oldFrame)}`).toBe(true);
            }
          }
          variants += 1;
        }
      }
    }
    expect(variants).toBe(28);
  });

  test.prop([anyCommand, fc.integer({ min: 0, max: 4_102_444_800_000 })], { numRuns: 300 })("render a record's request of any command as records always had it", (command, occurredAtMs) => {
    command.occurredAtMs = occurredAtMs; // a time the record can show
    const { principalId, actorId, authorityRef } = command.identity;
    const request = recordedRequestOf(command);
    const before = { ...handWrittenBody(command), principalId, actorId, ...(authorityRef === undefined ? {} : { authorityRef }), occurredAt: request["occurredAt"] };
    expect(JSON.stringify(request)).toBe(JSON.stringify(before));
  });
});
