import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { crc32c, crc32cPortable } from "../../storage/crc32c.js";
import { encodeFrame, frameChainMatches, frameCrcMatches, readFrameLsn, readFramePayloadLength, FRAME_HEADER_BYTES } from "../../storage/frame.js";
import { genesisChainHash, nextChainHash, sha256, sha256Into } from "../../storage/hash-chain.js";
import { readSafeU64LE, writeSafeU64LE } from "../../storage/safe-u64.js";
import {
  SEGMENT_HEADER_BYTES,
  encodeSegmentHeader,
  parseSegmentFileName,
  parseSegmentHeader,
  segmentFileName,
  segmentHeaderProblem,
} from "../../storage/segment-file.js";
import { createHash } from "node:crypto";

describe("crc32c", () => {
  it("matches the published CRC-32C check value", () => {
    expect(crc32c(Buffer.from("123456789"))).toBe(0xe3069283);
    expect(crc32cPortable(Buffer.from("123456789"))).toBe(0xe3069283);
    expect(crc32c(new Uint8Array(0))).toBe(0);
    // RFC 3720 B.4: 32 bytes of zeros.
    expect(crc32c(new Uint8Array(32))).toBe(0x8a9136aa);
    expect(crc32cPortable(new Uint8Array(32))).toBe(0x8a9136aa);
  });

  it("native and portable implementations agree, also when continued", () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 300 }), fc.nat(300), (bytes, splitAt) => {
      const split = Math.min(splitAt, bytes.length);
      const whole = crc32c(bytes);
      expect(crc32cPortable(bytes)).toBe(whole);
      expect(crc32c(bytes.subarray(split), crc32c(bytes.subarray(0, split)))).toBe(whole);
      expect(crc32cPortable(bytes.subarray(split), crc32cPortable(bytes.subarray(0, split)))).toBe(whole);
    }));
  });
});

describe("safe u64", () => {
  it("round-trips values up to MAX_SAFE_INTEGER and rejects larger stored values", () => {
    const buffer = Buffer.alloc(8);
    for (const value of [0, 1, 0xffffffff, 0x1_0000_0000, 2 ** 40 + 12345, Number.MAX_SAFE_INTEGER]) {
      writeSafeU64LE(buffer, value, 0);
      expect(buffer.readBigUInt64LE(0)).toBe(BigInt(value));
      expect(readSafeU64LE(buffer, 0)).toBe(value);
    }
    buffer.writeBigUInt64LE(BigInt(Number.MAX_SAFE_INTEGER) + 1n, 0);
    expect(readSafeU64LE(buffer, 0)).toBe(-1);
    expect(() => writeSafeU64LE(buffer, Number.MAX_SAFE_INTEGER + 1, 0)).toThrow();
    expect(() => writeSafeU64LE(buffer, -1, 0)).toThrow();
    expect(() => writeSafeU64LE(buffer, 1.5, 0)).toThrow();
  });
});

describe("hash chain", () => {
  it("is SHA-256(previous || payload) starting from 32 zero bytes", () => {
    const payload = Buffer.from("payload");
    const expected = createHash("sha256").update(Buffer.alloc(32)).update(payload).digest();
    expect(genesisChainHash()).toEqual(Buffer.alloc(32));
    expect(nextChainHash(genesisChainHash(), payload)).toEqual(expected);
  });

  it("writes every digest byte exactly, 0x80–0xff included, also over its own input", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), fc.nat({ max: 40 }), (bytes, offset) => {
        const expected = createHash("sha256").update(bytes).digest();
        expect(sha256(bytes).equals(expected)).toBe(true);
        const target = new Uint8Array(offset + 32 + 5).fill(0xee);
        sha256Into(bytes, target, offset);
        expect(Buffer.from(target.subarray(offset, offset + 32)).equals(expected)).toBe(true);
        expect([...target.subarray(0, offset), ...target.subarray(offset + 32)].every((b) => b === 0xee)).toBe(true);
        // Over its own input, as a frame's chain slot is: the digest is of the bytes before the write.
        const overlapping = Buffer.concat([Buffer.from(bytes), Buffer.alloc(32)]);
        const whole = createHash("sha256").update(overlapping).digest();
        sha256Into(overlapping, overlapping, 0);
        expect(overlapping.subarray(0, 32).equals(whole)).toBe(true);
      }),
    );
  });
});

describe("frame codec", () => {
  it("lays out length, crc, lsn, chain, payload", () => {
    const previous = nextChainHash(genesisChainHash(), Buffer.from("x"));
    const payload = Buffer.from("hello frame");
    const frame = encodeFrame(2 ** 33 + 7, previous, payload);
    expect(frame.length).toBe(FRAME_HEADER_BYTES + payload.length);
    expect(readFramePayloadLength(frame, 0)).toBe(payload.length);
    expect(frame.readUInt32LE(4)).toBe(crc32c(frame.subarray(8)));
    expect(readFrameLsn(frame, 0)).toBe(2 ** 33 + 7);
    expect(frame.readBigUInt64LE(8)).toBe(BigInt(2 ** 33 + 7));
    expect(frame.subarray(16, 48)).toEqual(nextChainHash(previous, payload));
    expect(frame.subarray(48)).toEqual(payload);
    expect(frameCrcMatches(frame, 0, frame.length)).toBe(true);
    const scratch = Buffer.alloc(32);
    const before = Buffer.from(frame);
    expect(frameChainMatches(frame, 0, frame.length, previous, scratch)).toBe(true);
    expect(frame).toEqual(before); // in-place check restores the bytes
    expect(frameChainMatches(frame, 0, frame.length, genesisChainHash(), scratch)).toBe(false);
    expect(frame).toEqual(before);
  });

  it("detects any single flipped bit after the CRC field", () => {
    const frame = encodeFrame(1, genesisChainHash(), Buffer.from("abc"));
    for (let byte = 8; byte < frame.length; byte++) {
      const copy = Buffer.from(frame);
      copy[byte] = (copy[byte] as number) ^ 1;
      expect(frameCrcMatches(copy, 0, copy.length)).toBe(false);
    }
  });

  it("rejects lsn 0 and a wrong-sized previous chain", () => {
    expect(() => encodeFrame(0, genesisChainHash(), Buffer.alloc(1))).toThrow();
    expect(() => encodeFrame(1, Buffer.alloc(31), Buffer.alloc(1))).toThrow();
  });
});

describe("segment naming and header", () => {
  it("names segments by base position, 20 digits", () => {
    expect(segmentFileName(0)).toBe("00000000000000000000.seg");
    expect(segmentFileName(1234)).toBe("00000000000000001234.seg");
    expect(parseSegmentFileName("00000000000000001234.seg")).toBe(1234);
    expect(parseSegmentFileName("1234.seg")).toBeNull();
    expect(parseSegmentFileName("00000000000000001234.seg.tmp")).toBeNull();
    expect(parseSegmentFileName("99999999999999999999.seg")).toBeNull(); // above 2^53
  });

  it("v2 header layout: magic, version 2, base, firstLsn, previousChain, CRC over [0, 68)", () => {
    const previousChain = nextChainHash(genesisChainHash(), Buffer.from("before"));
    const header = encodeSegmentHeader({ basePositionBytes: 2 ** 33 + 4096, firstLsn: 2 ** 40 + 3, previousChain });
    expect(SEGMENT_HEADER_BYTES).toBe(72);
    expect(header.length).toBe(72);
    expect(header.subarray(0, 8).toString("latin1")).toBe("SEGLOG\r\n");
    expect(header.readUInt32LE(8)).toBe(2);
    expect(header.readUInt32LE(12)).toBe(0);
    expect(header.readBigUInt64LE(16)).toBe(BigInt(2 ** 33 + 4096));
    expect(header.readBigUInt64LE(24)).toBe(BigInt(2 ** 40 + 3));
    expect(header.subarray(32, 64)).toEqual(previousChain);
    expect(header.readUInt32LE(64)).toBe(0);
    expect(header.readUInt32LE(68)).toBe(crc32c(header.subarray(0, 68)));
    const parsed = parseSegmentHeader(header, 2 ** 33 + 4096);
    expect(parsed).toEqual({ ok: true, header: { basePositionBytes: 2 ** 33 + 4096, firstLsn: 2 ** 40 + 3, previousChain } });
  });

  it("rejects a header that is truncated, damaged, of another version, or inconsistent with its name", () => {
    const header = encodeSegmentHeader({ basePositionBytes: 4096, firstLsn: 9, previousChain: genesisChainHash() });
    expect(segmentHeaderProblem(header, 4096)).toBeNull();
    expect(segmentHeaderProblem(header, 0)).toMatch(/base position/);
    expect(segmentHeaderProblem(header.subarray(0, 71), 4096)).toMatch(/truncated/);
    // Every single byte flip is caught (magic check or CRC), including in firstLsn and previousChain.
    for (let byte = 0; byte < 72; byte++) {
      const bad = Buffer.from(header);
      bad[byte] = (bad[byte] as number) ^ 0x10;
      expect(segmentHeaderProblem(bad, 4096), `byte ${byte}`).not.toBeNull();
    }
    // Fields that are wrong but carry a valid CRC (written by something else): refused by content.
    const withCrc = (edit: (b: Buffer) => void): Buffer => {
      const b = Buffer.from(header);
      edit(b);
      b.writeUInt32LE(crc32c(b.subarray(0, 68)), 68);
      return b;
    };
    expect(segmentHeaderProblem(withCrc((b) => b.writeUInt32LE(1, 8)), 4096)).toMatch(/unsupported segment format version 1/);
    expect(segmentHeaderProblem(withCrc((b) => b.writeUInt32LE(7, 12)), 4096)).toMatch(/reserved field at offset 12/);
    expect(segmentHeaderProblem(withCrc((b) => b.writeUInt32LE(7, 64)), 4096)).toMatch(/reserved field at offset 64/);
    expect(segmentHeaderProblem(withCrc((b) => b.writeBigUInt64LE(0n, 24)), 4096)).toMatch(/firstLsn/);
    expect(segmentHeaderProblem(withCrc((b) => b.writeBigUInt64LE(2n ** 60n, 24)), 4096)).toMatch(/firstLsn/);
    // The encoder refuses impossible values.
    expect(() => encodeSegmentHeader({ basePositionBytes: 0, firstLsn: 0, previousChain: genesisChainHash() })).toThrow();
    expect(() => encodeSegmentHeader({ basePositionBytes: 0, firstLsn: 1, previousChain: Buffer.alloc(31) })).toThrow();
  });
});
