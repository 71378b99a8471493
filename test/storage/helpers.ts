/** Shared helpers for storage tests: temp dirs, deterministic payloads, byte surgery on files. */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach } from "vitest";
import { nodeStorageFs, type StorageFs } from "../../storage/index.js";
import { rewriteFrameCrc } from "../../storage/frame.js";

const createdDirs: string[] = [];

/** A fresh directory under os.tmpdir(), removed after the current test. */
export function tempDir(label = "storage"): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${label}-`));
  createdDirs.push(dir);
  return dir;
}

afterEach(() => {
  for (const dir of createdDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** Deterministic, mostly non-zero payload for a given seed. */
export function payloadFor(seed: number, sizeBytes: number): Buffer {
  const out = Buffer.allocUnsafe(sizeBytes);
  for (let i = 0; i < sizeBytes; i++) out[i] = ((seed * 131 + i * 7 + 1) % 251) + 1;
  return out;
}

export function flipByte(filePath: string, offsetBytes: number): void {
  const content = fs.readFileSync(filePath);
  if (offsetBytes >= content.length) throw new Error(`offset ${offsetBytes} beyond ${filePath} (${content.length} bytes)`);
  content[offsetBytes] = (content[offsetBytes] as number) ^ 0x5a;
  fs.writeFileSync(filePath, content);
}

/** Edits one payload byte of the frame at `frameFileOffset` and recomputes its CRC. */
export function editPayloadKeepCrcValid(filePath: string, frameFileOffset: number, payloadIndex: number): void {
  const content = fs.readFileSync(filePath);
  const payloadLength = content.readUInt32LE(frameFileOffset);
  if (payloadIndex >= payloadLength) throw new Error("payload index out of range");
  const at = frameFileOffset + 48 + payloadIndex;
  content[at] = (content[at] as number) ^ 0xff;
  rewriteFrameCrc(content, frameFileOffset, 48 + payloadLength);
  fs.writeFileSync(filePath, content);
}

/** node:fs with selected calls overridden (failure injection). */
export function fsWith(overrides: Partial<StorageFs>): StorageFs {
  return { ...nodeStorageFs, ...overrides };
}

export function fileSize(filePath: string): number {
  return fs.statSync(filePath).size;
}
