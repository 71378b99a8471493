/**
 * The one audit signing key every node of a local cluster signs with (decisions.md I32: a cluster
 * has one key; a node with another is refused at start). Launchers (scripts/local-cluster.ts, the
 * test suite's service-cluster.ts and the single-binary test) keep it in their own directory,
 * outside every node's DATA_DIR, and pass its path as AUDIT_SIGNING_KEY_FILE to every node.
 */
import { generateKeyPairSync } from "node:crypto";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import * as path from "node:path";

export const CLUSTER_SIGNING_KEY_FILE_NAME = "audit-signing-key.pem";

/**
 * The path of `dir`/audit-signing-key.pem: an Ed25519 key (PEM PKCS#8, mode 0600), generated when
 * absent and reused when present, since the cluster's NATS records the key its first node signed with.
 */
export function clusterSigningKeyFile(dir: string): string {
  const file = path.join(dir, CLUSTER_SIGNING_KEY_FILE_NAME);
  if (existsSync(file)) return file;
  mkdirSync(dir, { recursive: true });
  const { privateKey } = generateKeyPairSync("ed25519");
  // "wx": never replace a key another launcher wrote meanwhile; mode 0600 from creation on.
  writeFileSync(file, privateKey.export({ format: "pem", type: "pkcs8" }).toString(), { mode: 0o600, flag: "wx" });
  return file;
}
