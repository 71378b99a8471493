/**
 * The participant's command-line commands, on the client SDK: `claim` and `bid` send a command with
 * an identity file's key and keep its receipt (`--receipt-out`), and `check-receipt` checks a kept
 * receipt against the service's public keys with proofs the service gives now (docs/client.md,
 * "Command line"; docs/proofs.md), or offline against a saved proof file (`--proof`). A kept receipt
 * holds the command it is for, and the check requires the proven entry to be that command. Exit codes
 * of `check-receipt`: 0 proven, 1 a check failed (forged, or not this command's receipt), 2 unusable
 * input, 3 could not check (the service out of reach or failing, or the entry withheld).
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { readPublicKeys } from "./public-keys-file.js";
import { cliClient, readIdentityFile, serviceUrl } from "./provision-token.js";
import { type Accepted, Ed25519Session, type IdentityFile, type MarketClient, MarketServiceError, type ReceiptCheck } from "@market-service/client";
import { checkReceiptProof, parseReceiptCommand, type ReceiptCommand } from "@market-service/client/audit";

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

/**
 * The reply body to stdout, the kept receipt to its file (`{receipt, command}`: the header's receipt
 * and the command it is for), a line about both to stderr.
 */
function report(what: string, accepted: Accepted<unknown>, receiptOut: string | undefined, command: ReceiptCommand): void {
  process.stdout.write(`${JSON.stringify(accepted.body)}\n`);
  if (receiptOut !== undefined) {
    if (accepted.receiptText === null) throw new Error(`${what} was accepted (command ${accepted.commandId}) but the service sent no receipt (AUDIT_HEADS=off?): nothing written to ${receiptOut}`);
    writeFileSync(receiptOut, `${keptReceiptJson(accepted.receiptText, command)}\n`, { flag: "wx" });
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
function outcomeUnknown(error: MarketServiceError): boolean {
  return error.code === "unreachable" || error.status >= 500;
}

async function withOutcomeHint<T>(sending: Promise<T>): Promise<T> {
  try {
    return await sending;
  } catch (error) {
    if (!(error instanceof MarketServiceError) || !outcomeUnknown(error) || error.commandId === undefined) throw error;
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
  report(`claim on market ${JSON.stringify(options.market)}`, accepted, options.receiptOut, { type: "direct_claim.submit", marketId: options.market, commandId: accepted.commandId, actorId: identity.actorId });
}

export async function bidCommand(options: ParticipantOptions & { amountMinor: number; currency: string }): Promise<void> {
  checkReceiptOut(options.receiptOut);
  const identity = readIdentityFile(options.identity);
  const client = participantClient(identity, options.url);
  const accepted = await withOutcomeHint(client.submitSealedBid(options.market, { ...acting(options, identity), amountMinor: options.amountMinor, currency: options.currency }));
  report(`bid on market ${JSON.stringify(options.market)}`, accepted, options.receiptOut, { type: "sealed_auction.submit_bid", marketId: options.market, commandId: accepted.commandId, actorId: identity.actorId });
}


/** What `check-receipt` is given (gateway/cli/cli.ts). */
export interface CheckReceiptOptions {
  publicKey: string;
  /** Online: the identity to read the proofs with, and the service. */
  identity?: string;
  url?: string;
  proofOut?: string;
  /** Offline: a saved proof file (`--proof-out` of an earlier check, or built from the endpoints' answers). */
  proof?: string;
  /** For a bare receipt (the header's JSON alone): the command it is for. */
  type?: string;
  market?: string;
  commandId?: string;
  actor?: string;
}

/** Exit codes of `check-receipt` (docs/proofs.md, "Checking a receipt"). */
export const CHECK_RECEIPT_EXIT = { proven: 0, failed: 1, unusable: 2, couldNotCheck: 3 } as const;

/**
 * `check-receipt FILE --public-key KEYS (--identity ID [--url U] [--proof-out F] | --proof P)`: the
 * receipt's inclusion proof, a head signed now and the consistency proof to it — from the service, or
 * offline from a saved proof file — checked with the keys given (never with keys the service would
 * hand out now), and the proven entry compared with the command the receipt is for.
 */
export async function checkReceiptCommand(file: string, options: CheckReceiptOptions): Promise<void> {
  const finish = (code: number, line: string): void => {
    (code === 0 ? process.stdout : process.stderr).write(`check-receipt: ${line}\n`);
    process.exitCode = code;
  };
  const unusable = (why: string): void => finish(CHECK_RECEIPT_EXIT.unusable, `unusable: ${why}`);
  if ((options.proof === undefined) === (options.identity === undefined)) return unusable("give --identity (ask the service for the proofs) or --proof (a saved proof file, offline), one of the two");
  if (options.proof !== undefined && options.proofOut !== undefined) return unusable("--proof-out writes the proofs fetched from the service; with --proof nothing is fetched");
  let keys: Map<string, Uint8Array>;
  try {
    keys = new Map(readPublicKeys(options.publicKey).map((key) => [key.keyId, key.publicKey]));
  } catch (error) {
    return unusable(error instanceof Error ? error.message : String(error));
  }
  const kept = readKeptReceipt(file, options);
  if (!kept.ok) return unusable(kept.message);
  let checked: ReceiptCheck;
  if (options.proof !== undefined) {
    const saved = readJsonFile(options.proof);
    if (!saved.ok) return unusable(saved.message);
    if (typeof saved.value !== "object" || saved.value === null || Array.isArray(saved.value)) return unusable(`${options.proof}: a proof file is a JSON object`);
    // The receipt and command checked are the ones given, whatever the saved file says.
    checked = checkReceiptProof({ ...(saved.value as Record<string, unknown>), receipt: kept.receipt, command: kept.command }, keys);
  } else {
    if (options.proofOut !== undefined && existsSync(options.proofOut)) return unusable(`${options.proofOut} exists; refusing to overwrite a proof file`);
    let identity: IdentityFile;
    try {
      identity = readIdentityFile(options.identity as string);
    } catch (error) {
      return unusable(error instanceof Error ? error.message : String(error));
    }
    try {
      checked = await participantClient(identity, options.url).checkReceipt(JSON.stringify(kept.receipt), keys, { command: kept.command });
    } catch (error) {
      if (error instanceof MarketServiceError && outcomeUnknown(error)) {
        return finish(CHECK_RECEIPT_EXIT.couldNotCheck, `could not check: ${error.message} (nothing was checked; check offline with --proof, from a saved proof file)`);
      }
      throw error;
    }
    if (options.proofOut !== undefined && checked.outcome !== "unusable" && checked.proofFile !== undefined) writeFileSync(options.proofOut, `${JSON.stringify(checked.proofFile, null, 2)}\n`, { flag: "wx" });
    // The service shows an entry to its own actor: withheld from that actor, it is not their command.
    if (checked.outcome === "unconfirmed" && identity.actorId === kept.command.actorId) {
      checked = { outcome: "failed", check: "entry", reason: `the service withholds the receipt's entry from actor ${JSON.stringify(identity.actorId)}, who sees every entry of theirs: it is not your command (${checked.reason})`, proofFile: checked.proofFile };
    }
  }
  switch (checked.outcome) {
    case "proven":
      return finish(CHECK_RECEIPT_EXIT.proven, `proven: ${checked.proven}`);
    case "failed":
      return finish(CHECK_RECEIPT_EXIT.failed, `FAILED: ${checked.check}: ${checked.reason}`);
    case "unconfirmed":
      return finish(CHECK_RECEIPT_EXIT.couldNotCheck, `could not check: ${checked.reason}`);
    case "unusable":
      return unusable(`${file}: ${checked.reason}`);
  }
}

/** A kept receipt's JSON: the header's receipt and the command it is for. */
function keptReceiptJson(receiptText: string, command: ReceiptCommand): string {
  return JSON.stringify({ receipt: JSON.parse(receiptText) as unknown, command });
}

/**
 * The receipt and its command from `file`: a kept receipt (`{receipt, command}`, as claim and bid
 * write it), or the header's JSON alone with the command in `--type --market --command-id --actor`.
 */
function readKeptReceipt(file: string, options: CheckReceiptOptions): { ok: true; receipt: unknown; command: ReceiptCommand } | { ok: false; message: string } {
  const read = readJsonFile(file);
  if (!read.ok) return read;
  const value = read.value;
  const given = [options.type, options.market, options.commandId, options.actor];
  if (typeof value === "object" && value !== null && !Array.isArray(value) && "command" in value) {
    if (given.some((option) => option !== undefined)) return { ok: false, message: `${file} names its command; --type, --market, --command-id and --actor are for a bare receipt` };
    const { receipt, command, ...rest } = value as Record<string, unknown>;
    const extra = Object.keys(rest);
    if (extra.length > 0) return { ok: false, message: `${file}: ${extra[0] ?? ""} is not a member of a kept receipt (expected receipt, command)` };
    const parsed = parseReceiptCommand(command);
    return parsed.ok ? { ok: true, receipt, command: parsed.command } : { ok: false, message: `${file}: ${parsed.message}` };
  }
  if (given.some((option) => option === undefined)) return { ok: false, message: `${file} is a bare receipt: give the command it is for with --type, --market, --command-id and --actor` };
  const parsed = parseReceiptCommand({ type: options.type, marketId: options.market, commandId: options.commandId, actorId: options.actor });
  return parsed.ok ? { ok: true, receipt: value, command: parsed.command } : { ok: false, message: parsed.message };
}

function readJsonFile(file: string): { ok: true; value: unknown } | { ok: false; message: string } {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    return { ok: false, message: `${file}: cannot be read (${error instanceof Error ? error.message : String(error)})` };
  }
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false, message: `${file}: not JSON` };
  }
}
