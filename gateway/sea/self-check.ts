/**
 * `MARKET_SERVICE_SELF_CHECK=1 market-service`: a diagnostic of the single binary, printed as one
 * JSON object on stdout (exit 0 when everything holds, 1 otherwise). It loads the embedded addons
 * exactly as the service does and reports where they were extracted, and checks the two libraries
 * whose native parts behave differently inside the binary:
 *   - CRC-32C: the embedded @node-rs/crc32 addon against the portable JS implementation;
 *   - msgpackr: runs without its optional native string extractor (pure-JS decoding), so every
 *     sample is round-tripped (value and bytes) and the packed digest is reported for comparison
 *     with a normal install (test/binary/binary.test.ts does that).
 */
import { isDeepStrictEqual } from "node:util";
import { Packr, isNativeAccelerationEnabled } from "msgpackr";
import { crc32c, crc32cPortable } from "../../storage/crc32c.js";
import { isNativeUws } from "../http/uws.js";
import uWS from "@trufflesuite/uws-js-unofficial";
import { decodeLoggedCommand, encodeLoggedCommand, loggedCommand } from "../../engine/log/logged-command.js";
import { buildCommand, buildIdentity } from "../../engine/rules/types/command-layout.js";
import { SERVICE_VERSION } from "../api/version.js";
import { msgpackSamples, packedDigest } from "./msgpack-samples.js";
import { addonCacheRoot, loadedAddons } from "../../engine/binary/native-addon.js";

function crcCheck(): { checks: number; matchesPortable: boolean } {
  let state = 0x12345678;
  const random = () => {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    return state >>> 24;
  };
  let ok = true;
  let checks = 0;
  for (const length of [0, 1, 3, 7, 8, 9, 15, 16, 63, 64, 65, 1000, 4096, 65_537, 1_000_003]) {
    const data = new Uint8Array(length);
    for (let i = 0; i < length; i += 1) data[i] = random();
    for (const initial of [0, 0xdeadbeef]) {
      checks += 1;
      if (crc32c(data, initial) !== crc32cPortable(data, initial)) ok = false;
    }
  }
  return { checks, matchesPortable: ok };
}

function msgpackCheck(): { nativeAcceleration: boolean; samples: number; roundTrips: boolean; failures: number[]; packedSha256: string } {
  // The log's codec settings (engine/log/logged-command.ts).
  const packr = new Packr({ useRecords: false, moreTypes: false });
  const samples = msgpackSamples();
  const failures: number[] = [];
  samples.forEach((sample, index) => {
    const bytes = packr.pack(sample);
    const decoded: unknown = packr.unpack(bytes);
    if (!isDeepStrictEqual(decoded, sample) || !Buffer.from(packr.pack(decoded)).equals(Buffer.from(bytes))) failures.push(index);
  });
  return { nativeAcceleration: isNativeAccelerationEnabled, samples: samples.length, roundTrips: failures.length === 0, failures, packedSha256: packedDigest(packr, samples) };
}

function loggedCommandCheck(): boolean {
  const create = buildCommand("market.create_draft", {
    marketId: "table-7",
    subject: { schema: "table.v1", data: { seats: 4, name: "Tisch am Fenster — 窓際", __proto__x: "kept" } },
    mechanism: { presetId: "direct-claim.v1", config: { capacity: 1, pricing: { mode: "free" }, confirmation: "none" } },
    commandId: "c1",
    identity: buildIdentity({ principalId: "alice", actorId: "alice" }),
    occurredAtMs: 1_795_000_000_000,
  });
  const entry = loggedCommand(create, "fingerprint-é", undefined);
  return isDeepStrictEqual(decodeLoggedCommand(encodeLoggedCommand(entry)), entry);
}

export function runSelfCheck(): void {
  const uws = { native: isNativeUws(uWS) };
  const crc = crcCheck();
  const msgpack = msgpackCheck();
  const loggedCommandRoundTrip = loggedCommandCheck();
  const ok = uws.native && crc.matchesPortable && msgpack.roundTrips && loggedCommandRoundTrip;
  const report = {
    ok,
    version: SERVICE_VERSION,
    node: process.version,
    addonCacheRoot: addonCacheRoot(),
    addons: loadedAddons(),
    uws,
    crc32c: crc,
    msgpackr: msgpack,
    loggedCommandRoundTrip,
  };
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  process.exitCode = ok ? 0 : 1;
}
