/**
 * CRC-32C (Castagnoli). The native SIMD implementation from @node-rs/crc32 is used on all hot
 * paths. `crc32cPortable` is a slice-by-8 table implementation kept as the reference the tests
 * cross-check against and as the alternative measured in bench/storage.bench.ts. Note that
 * node:zlib's `crc32` is CRC-32 (IEEE polynomial), a different checksum, so it is not usable here.
 *
 * Single binary (dist/market-service): the build aliases the `@node-rs/crc32` import to
 * engine/binary/crc32-addon.ts, which loads the addon embedded in the executable (extracted once,
 * process.dlopen'ed). Everywhere else this is the normal package import.
 */
import { crc32c as nativeCrc32c } from "@node-rs/crc32";

/** CRC-32C of `data`; pass a previous result as `initial` to continue over split input. */
export function crc32c(data: Uint8Array, initial = 0): number {
  return nativeCrc32c(data, initial);
}

const CASTAGNOLI_REFLECTED = 0x82f63b78;
const TABLES: Uint32Array[] = buildTables();

function buildTables(): Uint32Array[] {
  const tables: Uint32Array[] = [];
  const t0 = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? CASTAGNOLI_REFLECTED ^ (c >>> 1) : c >>> 1;
    t0[n] = c >>> 0;
  }
  tables.push(t0);
  for (let t = 1; t < 8; t++) {
    const prev = tables[t - 1] as Uint32Array;
    const next = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      const p = prev[n] as number;
      next[n] = ((p >>> 8) ^ (t0[p & 0xff] as number)) >>> 0;
    }
    tables.push(next);
  }
  return tables;
}

/** Pure-JS slice-by-8 CRC-32C; same results as `crc32c`, several times slower. */
export function crc32cPortable(data: Uint8Array, initial = 0): number {
  const [t0, t1, t2, t3, t4, t5, t6, t7] = TABLES as [
    Uint32Array, Uint32Array, Uint32Array, Uint32Array,
    Uint32Array, Uint32Array, Uint32Array, Uint32Array,
  ];
  let crc = ~initial >>> 0;
  let i = 0;
  const end8 = data.length - (data.length % 8);
  for (; i < end8; i += 8) {
    const a = (crc ^ ((data[i] as number) | ((data[i + 1] as number) << 8) | ((data[i + 2] as number) << 16) | ((data[i + 3] as number) << 24))) >>> 0;
    crc =
      (t7[a & 0xff] as number) ^
      (t6[(a >>> 8) & 0xff] as number) ^
      (t5[(a >>> 16) & 0xff] as number) ^
      (t4[a >>> 24] as number) ^
      (t3[data[i + 4] as number] as number) ^
      (t2[data[i + 5] as number] as number) ^
      (t1[data[i + 6] as number] as number) ^
      (t0[data[i + 7] as number] as number);
  }
  for (; i < data.length; i++) crc = (t0[(crc ^ (data[i] as number)) & 0xff] as number) ^ (crc >>> 8);
  return ~crc >>> 0;
}
