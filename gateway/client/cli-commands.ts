/** The `provision` and `token` command-line commands. Secrets go to files (0600) or stdout, never logs. */
import { closeSync, existsSync, openSync, readFileSync, writeSync } from "node:fs";
import * as path from "node:path";
import { ServiceClient, type IdentityFile } from "./service-client.js";

function operatorCredentials(file: string | undefined): { actorId: string; secret: string } {
  const envActor = process.env["SERVICE_HMAC_ACTOR"];
  const envSecret = process.env["SERVICE_HMAC_SECRET"];
  if (file === undefined && envActor !== undefined && envSecret !== undefined) return { actorId: envActor, secret: envSecret };
  const location = file ?? path.join(process.env["DATA_DIR"] ?? "./data", "operator.secret");
  if (!existsSync(location)) {
    throw new Error(`no operator credentials: ${location} does not exist (pass --operator-secret-file, or set SERVICE_HMAC_ACTOR and SERVICE_HMAC_SECRET)`);
  }
  const parsed = JSON.parse(readFileSync(location, "utf8")) as { actorId?: unknown; secret?: unknown };
  if (typeof parsed.actorId !== "string" || typeof parsed.secret !== "string") throw new Error(`${location} is not {actorId, secret}`);
  return { actorId: parsed.actorId, secret: parsed.secret };
}

export async function provisionCommand(options: { principal: string; actor?: string; keyId?: string; out: string; url: string; operatorSecretFile?: string }): Promise<void> {
  if (existsSync(options.out)) throw new Error(`${options.out} exists; refusing to overwrite an identity file`);
  const client = new ServiceClient(options.url.replace(/\/+$/, ""));
  const identity = await client.provision(operatorCredentials(options.operatorSecretFile), {
    principalId: options.principal,
    ...(options.actor === undefined ? {} : { actorId: options.actor }),
    ...(options.keyId === undefined ? {} : { keyId: options.keyId }),
  });
  // Create with mode 0600 from the start: the private key is never world-readable, not even briefly.
  const fd = openSync(options.out, "wx", 0o600);
  try {
    writeSync(fd, `${JSON.stringify(identity, null, 2)}\n`);
  } finally {
    closeSync(fd);
  }
  process.stderr.write(`provisioned principal ${JSON.stringify(identity.principalId)} (actor ${JSON.stringify(identity.actorId)}, key ${JSON.stringify(identity.keyId)}) → ${options.out}\n`);
}

export async function tokenCommand(options: { identity: string; url?: string }): Promise<void> {
  const identity = JSON.parse(readFileSync(options.identity, "utf8")) as IdentityFile;
  const url = (options.url ?? identity.url ?? "http://127.0.0.1:8080").replace(/\/+$/, "");
  const grant = await new ServiceClient(url).token(identity);
  process.stdout.write(`${grant.accessToken}\n`);
}
