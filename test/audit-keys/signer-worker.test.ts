/**
 * The signer crosses into a worker thread (what shard workers will do to sign heads): its workerData
 * is cloned into a real worker, which rebuilds the signer and signs; the signature verifies with
 * @noble/ed25519 under the parent's public key.
 */
import { generateKeyPairSync } from "node:crypto";
import * as ed from "@noble/ed25519";
import { describe, expect, it } from "vitest";
import { auditSignerFromPrivateKey, auditSignerWorkerData } from "../../engine/audit/signing/audit-signer.js";
import "@market-service/client/audit"; // sets noble's SHA-512
import { startWorker, workerSource } from "../../engine/binary/embedded-worker.js";

describe("an audit signer in a worker thread", () => {
  it("is rebuilt from its workerData and signs with the same key", async () => {
    const signer = auditSignerFromPrivateKey(generateKeyPairSync("ed25519").privateKey);
    const message = new TextEncoder().encode("head: size 12, root 3f…, log shard-00");
    const worker = startWorker(workerSource("unused", import.meta.url, "signer-worker"), { workerData: { signer: auditSignerWorkerData(signer), message } });
    const reply = await new Promise<{ keyId: string; publicKey: Uint8Array; signature: Uint8Array }>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("no reply from the worker within 20 s")), 20_000);
      worker.once("message", (value: { keyId: string; publicKey: Uint8Array; signature: Uint8Array }) => {
        clearTimeout(timer);
        resolve(value);
      });
      worker.once("error", reject);
    });
    await worker.terminate();
    expect(reply.keyId).toBe(signer.keyId);
    expect(Buffer.from(reply.publicKey).equals(Buffer.from(signer.publicKey))).toBe(true);
    expect(ed.verify(reply.signature, message, signer.publicKey, { zip215: false })).toBe(true);
  });

  it("is refused for a signer the worker could not rebuild", () => {
    const foreign = { keyId: "0".repeat(32), publicKey: new Uint8Array(32), sign: () => new Uint8Array(64) };
    expect(() => auditSignerWorkerData(foreign)).toThrow(/auditSignerFromPrivateKey/);
  });
});
