/** Shared helpers for identity/auth tests: temp data dirs, a store on a ManualClock, key pairs. */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach } from "vitest";
import { AuthService, loadAuthConfig, type Env } from "../../gateway/auth/index.js";
import { ManualClock } from "../../engine/clock.js";
import { IdempotencyIndex } from "../../engine/idempotency/index.js";
import { IdentityStore, type IdentityStoreOptions } from "../../engine/identity/index.js";
import { generateKeyPair, type Ed25519KeyPair } from "@market-service/client";
import type { IdentityReply, Reply } from "../../engine/rules/identity/types.js";
import type { TemporarilyUnavailable } from "../../engine/identity/unavailable.js";
import { FileJournal } from "../../engine/journal/file-journal.js";
import type { Journal } from "../../engine/journal/journal.js";
import type { StorageFs } from "../../storage/index.js";

export const T0 = Date.parse("2026-03-01T12:00:00.000Z");
export const OPERATOR = "op-admin";

const createdDirs: string[] = [];
const openStores: IdentityStore[] = [];

export function tempDir(label = "identity"): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${label}-`));
  createdDirs.push(dir);
  return dir;
}

afterEach(async () => {
  for (const store of openStores.splice(0)) await store.close();
  for (const dir of createdDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/**
 * The identity log's file journal on the test's own thread, making its file-system calls through
 * `storageFs` (injected failures): functions cannot be handed to the journal worker the store
 * uses by default.
 */
export function inThreadJournal(storageFs: StorageFs): (options: { dir: string; segmentSizeBytes?: number }) => Promise<Journal> {
  return async (options) => FileJournal.open({ ...options, fs: storageFs });
}

export interface Harness {
  dir: string;
  clock: ManualClock;
  index: IdempotencyIndex;
  store: IdentityStore;
  /** Closes the store and opens a new one on the same directory with a fresh idempotency index. */
  reopen(overrides?: Partial<IdentityStoreOptions>): Promise<Harness>;
}

export async function openHarness(
  options: { dir?: string; clock?: ManualClock } & Partial<Omit<IdentityStoreOptions, "dir" | "clock">> = {},
): Promise<Harness> {
  const dir = options.dir ?? path.join(tempDir(), "identity");
  const clock = options.clock ?? new ManualClock(T0);
  const index = new IdempotencyIndex();
  const { dir: _d, clock: _c, ...rest } = options;
  const store = await IdentityStore.open({ isOperator: (actorId) => actorId === OPERATOR, ...rest, dir, clock, idempotency: index });
  openStores.push(store);
  const harness: Harness = {
    dir,
    clock,
    index,
    store,
    async reopen(overrides = {}) {
      await store.close();
      return openHarness({ ...rest, ...overrides, dir, clock });
    },
  };
  return harness;
}

export interface ProvisionedKey extends Ed25519KeyPair {
  principalId: string;
  actorId: string;
  keyId: string;
}

let commandCounter = 0;
export function nextCommandId(prefix = "cmd"): string {
  commandCounter += 1;
  return `${prefix}-${commandCounter}`;
}

/** Provisions principal = actor = `id` with key `<id>-key` and a fresh key pair. */
export async function provisionSelf(store: IdentityStore, id: string): Promise<ProvisionedKey> {
  const pair = generateKeyPair();
  const reply = await store.provisionIdentity(OPERATOR, {
    commandId: nextCommandId("prov"),
    principalId: id,
    actorId: id,
    keyId: `${id}-key`,
    publicKey: pair.publicKey,
  });
  if (!reply.ok) throw new Error(`provisioning ${id} failed: ${reply.code} ${reply.message}`);
  return { ...pair, principalId: id, actorId: id, keyId: `${id}-key` };
}

export function expectOk<B>(reply: Reply<B> | IdentityReply | TemporarilyUnavailable): B {
  if (!reply.ok) throw new Error(`expected success, got ${reply.code}: ${reply.message}`);
  return reply.body as B;
}

/** Every file under `dir`, recursively, as one Buffer each. */
export function readAllFiles(dir: string): Array<{ file: string; bytes: Buffer }> {
  const out: Array<{ file: string; bytes: Buffer }> = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath ?? entry.path, entry.name);
    out.push({ file, bytes: fs.readFileSync(file) });
  }
  return out;
}

export const HMAC_SECRET = "operator-secret-0123456789abcdefghijklmnop";

/** An AuthService over the harness's store; HMAC secret for OPERATOR unless `env` says otherwise. */
export function authFor(h: Harness, env: Env = {}): AuthService {
  const config = loadAuthConfig(
    { SERVICE_HMAC_SECRETS: `${OPERATOR}=${HMAC_SECRET}`, SERVICE_OPERATOR_ACTORS: OPERATOR, ...env },
    tempDir("data"),
  );
  return new AuthService(config, h.store);
}
