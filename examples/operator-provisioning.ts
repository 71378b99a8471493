/**
 * Operator provisioning with the client SDK: one identity (principal = actor, a fresh Ed25519 key
 * pair) per name, each written to `<out>/<name>.identity.json` (mode 0600: it holds the private key),
 * through the HMAC-signed admin endpoint. Run against a local service (docs/client.md, "Examples"):
 *
 *   SERVICE_HMAC_ACTOR=operator SERVICE_HMAC_SECRET=... \
 *     node --import tsx examples/operator-provisioning.ts --url http://127.0.0.1:8080 dana erin
 *
 * Identity files go to `example-identities/` (`--out` to change it), apart from the quick start's
 * `identities/`. A name provisioned before is reported and skipped (identity_conflict), so the
 * script can be re-run; any other refusal is one line on stderr and exit status 1.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { errorGuards, MarketClient } from "@market-service/client";

const { values, positionals } = parseArgs({ options: { url: { type: "string", default: "http://127.0.0.1:8080" }, out: { type: "string", default: "example-identities" } }, allowPositionals: true });
const actorId = process.env["SERVICE_HMAC_ACTOR"];
const secret = process.env["SERVICE_HMAC_SECRET"];
if (actorId === undefined || secret === undefined || positionals.length === 0) {
  process.stderr.write("usage: SERVICE_HMAC_ACTOR=… SERVICE_HMAC_SECRET=… operator-provisioning.ts [--url U] [--out DIR] NAME…\n");
  process.exit(2);
}

async function main(url: string, out: string, operatorActor: string, operatorSecret: string): Promise<void> {
  const operator = new MarketClient({ baseUrl: url, credentials: { kind: "hmac", actorId: operatorActor, secret: operatorSecret } });
  mkdirSync(out, { recursive: true, mode: 0o700 });
  for (const name of positionals) {
    try {
      const identity = await operator.provisionNewIdentity({ principalId: name });
      const file = path.join(out, `${name}.identity.json`);
      writeFileSync(file, `${JSON.stringify(identity, null, 2)}\n`, { mode: 0o600, flag: "wx" });
      process.stdout.write(`provisioned ${name} → ${file}\n`);
    } catch (error) {
      if (!errorGuards.identity_conflict(error)) throw error;
      process.stdout.write(`exists ${name}: ${error.serviceMessage}\n`);
    }
  }
}

// A refusal is one line (what was asked, status, code, message, request id), not a stack trace.
await main(values.url, values.out, actorId, secret).catch((error: unknown) => {
  process.stderr.write(`operator-provisioning: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
