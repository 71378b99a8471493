/**
 * The participant's command-line commands, on the client SDK: `claim` and `bid` send a command with
 * an identity file's key and keep its receipt (`--receipt-out`), and `check-receipt` checks a kept
 * receipt against the service's public keys with proofs the service gives now (docs/client.md,
 * "Command line"; docs/proofs.md). Exit codes of `check-receipt` are `check-proof`'s: 0 proven,
 * 1 a check failed, 2 an unusable file.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { readPublicKeys } from "../public-keys-file.js";
import { cliClient, readIdentityFile, serviceUrl } from "./cli-commands.js";
import { Ed25519Session, type IdentityFile } from "./credentials.js";
import type { Accepted, MarketClient } from "./market-client.js";
import { MarketServiceError } from "./service-error.js";
import { ServiceUnreachableError } from "./unreachable.js";

interface ParticipantOptions {
  identity: string;
  url?: string;
  market: string;
  receiptOut?: string;
  commandId?: string;
  principal?: string;
  authorityRef?: string;
}

/** The client acting with `identity`'s key: tokens come (and are renewed) from its challenge flow. */
function participantClient(identity: IdentityFile, url: string | undefined): MarketClient {
  return cliClient(serviceUrl(url, identity)).withCredentials(new Ed25519Session(identity));
}

/** Refuse before sending a command whose receipt could then not be kept. */
function checkReceiptOut(file: string | undefined): void {
  if (file === undefined) return;
  if (existsSync(file)) throw new Error(`${file} exists; refusing to overwrite a receipt`);
  if (!existsSync(path.dirname(path.resolve(file)))) throw new Error(`cannot write ${file}: folder ${path.dirname(file)} does not exist`);
}

/** The reply body to stdout, the receipt to its file, a line about both to stderr. */
function report(what: string, accepted: Accepted<unknown>, receiptOut: string | undefined): void {
  process.stdout.write(`${JSON.stringify(accepted.body)}\n`);
  if (receiptOut !== undefined) {
    if (accepted.receiptText === null) throw new Error(`${what} was accepted (command ${accepted.commandId}) but the service sent no receipt (AUDIT_HEADS=off?): nothing written to ${receiptOut}`);
    writeFileSync(receiptOut, `${accepted.receiptText}\n`, { flag: "wx" });
  }
  const where = accepted.receipt === null ? "no receipt" : `entry ${accepted.receipt.leafIndex + 1} of log ${accepted.receipt.head.logId}${receiptOut === undefined ? "" : `, receipt → ${receiptOut}`}`;
  process.stderr.write(`${what} accepted: command ${accepted.commandId}, ${where}\n`);
}

function acting(options: ParticipantOptions, identity: IdentityFile): { commandId?: string; principalId: string; authorityRef?: string } {
  return {
    principalId: options.principal ?? identity.principalId,
    ...(options.commandId === undefined ? {} : { commandId: options.commandId }),
    ...(options.authorityRef === undefined ? {} : { authorityRef: options.authorityRef }),
  };
}

/**
 * A command whose outcome is unknown (no answer, or a 5xx) fails with how to learn it safely: the
 * SDK puts the command's id on its errors, and the same id sent again returns the original result.
 */
async function withOutcomeHint<T>(sending: Promise<T>): Promise<T> {
  try {
    return await sending;
  } catch (error) {
    const unknown = error instanceof ServiceUnreachableError || (error instanceof MarketServiceError && error.status >= 500);
    if (!unknown || error.commandId === undefined) throw error;
    throw new Error(`${error.message} (the command may or may not have been recorded: run it again with --command-id ${error.commandId} to learn which, without doing it twice)`);
  }
}

export async function claimCommand(options: ParticipantOptions & { expectedVersion?: number }): Promise<void> {
  checkReceiptOut(options.receiptOut);
  const identity = readIdentityFile(options.identity);
  const client = participantClient(identity, options.url);
  const accepted = await withOutcomeHint(
    client.submitDirectClaim(options.market, {
      ...acting(options, identity),
      ...(options.expectedVersion === undefined ? {} : { expectedVersion: options.expectedVersion }),
    }),
  );
  report(`claim on market ${JSON.stringify(options.market)}`, accepted, options.receiptOut);
}

export async function bidCommand(options: ParticipantOptions & { amountMinor: number; currency: string }): Promise<void> {
  checkReceiptOut(options.receiptOut);
  const identity = readIdentityFile(options.identity);
  const client = participantClient(identity, options.url);
  const accepted = await withOutcomeHint(client.submitSealedBid(options.market, { ...acting(options, identity), amountMinor: options.amountMinor, currency: options.currency }));
  report(`bid on market ${JSON.stringify(options.market)}`, accepted, options.receiptOut);
}

/**
 * `check-receipt FILE --identity ID --public-key KEYS [--url U] [--proof-out F]`: the receipt's
 * inclusion proof, a head signed now and the consistency proof to it, all from the service, checked
 * with the keys given (never with keys the service would hand out now).
 */
export async function checkReceiptCommand(file: string, options: { identity: string; publicKey: string; url?: string; proofOut?: string }): Promise<void> {
  const unusable = (why: string): void => {
    process.stderr.write(`check-receipt: unusable: ${why}\n`);
    process.exitCode = 2;
  };
  let keys: Map<string, Uint8Array>;
  try {
    keys = new Map(readPublicKeys(options.publicKey).map((key) => [key.keyId, key.publicKey]));
  } catch (error) {
    return unusable(error instanceof Error ? error.message : String(error));
  }
  let receiptText: string;
  try {
    receiptText = readFileSync(file, "utf8").trim();
  } catch (error) {
    return unusable(`${file}: cannot be read (${error instanceof Error ? error.message : String(error)})`);
  }
  if (options.proofOut !== undefined && existsSync(options.proofOut)) return unusable(`${options.proofOut} exists; refusing to overwrite a proof file`);
  const identity = readIdentityFile(options.identity);
  const checked = await participantClient(identity, options.url).checkReceipt(receiptText, keys);
  if (checked.outcome === "unusable") return unusable(`${file}: ${checked.reason}`);
  if (options.proofOut !== undefined && checked.proofFile !== undefined) writeFileSync(options.proofOut, `${JSON.stringify(checked.proofFile, null, 2)}\n`, { flag: "wx" });
  if (checked.outcome === "proven") {
    process.stdout.write(`check-receipt: proven: ${checked.proven}\n`);
    return;
  }
  process.stderr.write(`check-receipt: FAILED: ${checked.check}: ${checked.reason}\n`);
  process.exitCode = 1;
}
