/**
 * Operator provisioning with the client SDK: one identity (principal = actor, a fresh Ed25519 key
 * pair) per name, each written to `<out>/<name>.identity.json` (mode 0600: it holds the private key),
 * through the HMAC-signed admin endpoint. Run against a local service (docs/client.md, "Examples"):
 *
 *   SERVICE_HMAC_ACTOR=operator SERVICE_HMAC_SECRET=... \
 *     node --import tsx examples/operator-provisioning.ts --url http://127.0.0.1:8080 --out ids alice bob
 *
 * A name provisioned before is reported and skipped (identity_conflict), so the script can be re-run.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { errorGuards, MarketClient } from "market-service/client";

const { values, positionals } = parseArgs({ options: { url: { type: "string", default: "http://127.0.0.1:8080" }, out: { type: "string", default: "identities" } }, allowPositionals: true });
const actorId = process.env["SERVICE_HMAC_ACTOR"];
const secret = process.env["SERVICE_HMAC_SECRET"];
if (actorId === undefined || secret === undefined || positionals.length === 0) {
  process.stderr.write("usage: SERVICE_HMAC_ACTOR=… SERVICE_HMAC_SECRET=… operator-provisioning.ts [--url U] [--out DIR] NAME…\n");
  process.exit(2);
}

const operator = new MarketClient({ baseUrl: values.url, credentials: { kind: "hmac", actorId, secret } });
mkdirSync(values.out, { recursive: true, mode: 0o700 });
for (const name of positionals) {
  try {
    const identity = await operator.provisionNewIdentity({ principalId: name });
    const file = path.join(values.out, `${name}.identity.json`);
    writeFileSync(file, `${JSON.stringify(identity, null, 2)}\n`, { mode: 0o600, flag: "wx" });
    process.stdout.write(`provisioned ${name} → ${file}\n`);
  } catch (error) {
    if (!errorGuards.identity_conflict(error)) throw error;
    process.stdout.write(`exists ${name}: ${error.serviceMessage}\n`);
  }
}
