/**
 * One participant of a claim storm, with the client SDK: claim a place in a first-come direct-claim
 * market with an identity file's key, and say whether it was won. A claim that meets a restart or an
 * overloaded service is retried with the same commandId (never counted twice; the SDK's default
 * retries outlast a restart); a full market is `capacity_exhausted`, told apart with its guard. A won
 * place's receipt is saved, to prove later that the claim was accepted. Run many at once against a
 * local service (docs/client.md, "Examples"):
 *
 *   for who in dana erin frank; do
 *     node --import tsx examples/claim-storm-participant.ts --url http://127.0.0.1:8080 \
 *       --identity example-identities/$who.identity.json --market example-table --receipt-out $who.receipt.json &
 *   done; wait
 *
 * Prints one JSON line: {"principalId","outcome":"won"|"full","commitmentId"?,"attempts"?}. Any other
 * refusal is one line on stderr and exit status 1.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { Ed25519Session, errorGuards, MarketClient, type IdentityFile } from "@market-service/client";

const { values } = parseArgs({ options: { url: { type: "string", default: "http://127.0.0.1:8080" }, identity: { type: "string" }, market: { type: "string" }, "receipt-out": { type: "string" } } });
if (values.identity === undefined || values.market === undefined) {
  process.stderr.write("usage: claim-storm-participant.ts --identity FILE --market ID [--url U] [--receipt-out FILE]\n");
  process.exit(2);
}

async function main(url: string, identityFile: string, marketId: string, receiptOut: string | undefined): Promise<void> {
  const identity = JSON.parse(readFileSync(identityFile, "utf8")) as IdentityFile;
  const client = new MarketClient({ baseUrl: url, credentials: new Ed25519Session(identity) });
  try {
    const claimed = await client.submitDirectClaim(marketId, { principalId: identity.principalId });
    if (receiptOut !== undefined && claimed.receiptText !== null) writeFileSync(receiptOut, `${claimed.receiptText}\n`, { flag: "wx" });
    const commitmentId = claimed.body.commitments[0]?.id;
    process.stdout.write(`${JSON.stringify({ principalId: identity.principalId, outcome: "won", commitmentId, attempts: claimed.attempts })}\n`);
  } catch (error) {
    if (!errorGuards.capacity_exhausted(error)) throw error;
    process.stdout.write(`${JSON.stringify({ principalId: identity.principalId, outcome: "full" })}\n`);
  }
}

// A refusal is one line (what was asked, status, code, message, request id), not a stack trace.
await main(values.url, values.identity, values.market, values["receipt-out"]).catch((error: unknown) => {
  process.stderr.write(`claim-storm-participant: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
