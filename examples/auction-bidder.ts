/**
 * An auction bidder, with the client SDK: place one sealed bid in a sealed second-price auction with
 * an identity file's key, keep its receipt, then watch the bidder's own outcome (GET …/my-outcome:
 * the only read that shows a bidder its commitment) until the auction has resolved, and confirm the
 * commitment if the bid won. Run against a local service (docs/client.md, "Examples"):
 *
 *   node --import tsx examples/auction-bidder.ts --url http://127.0.0.1:8080 \
 *     --identity example-identities/erin.identity.json --market example-lamp --amount-minor 1800 --currency EUR \
 *     [--receipt-out erin.bid.json] [--wait-seconds 600]
 *
 * Prints one JSON line: {"principalId","outcome":"won"|"lost"|"open","price"?,"commitmentId"?}.
 * The bid amount is never printed. A refusal is one line on stderr and exit status 1.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { Ed25519Session, MarketClient, type IdentityFile } from "@market-service/client";

const { values } = parseArgs({
  options: {
    url: { type: "string", default: "http://127.0.0.1:8080" },
    identity: { type: "string" },
    market: { type: "string" },
    "amount-minor": { type: "string" },
    currency: { type: "string", default: "EUR" },
    "receipt-out": { type: "string" },
    "wait-seconds": { type: "string", default: "600" },
  },
});
const amountMinor = Number(values["amount-minor"]);
if (values.identity === undefined || values.market === undefined || !Number.isSafeInteger(amountMinor) || amountMinor < 1) {
  process.stderr.write("usage: auction-bidder.ts --identity FILE --market ID --amount-minor N [--currency C] [--url U] [--receipt-out FILE] [--wait-seconds S]\n");
  process.exit(2);
}

async function main(identityFile: string, marketId: string): Promise<void> {
  const identity = JSON.parse(readFileSync(identityFile, "utf8")) as IdentityFile;
  const client = new MarketClient({ baseUrl: values.url, credentials: new Ed25519Session(identity) });
  const bid = await client.submitSealedBid(marketId, { principalId: identity.principalId, amountMinor, currency: values.currency });
  const receiptOut = values["receipt-out"];
  if (receiptOut !== undefined && bid.receiptText !== null) writeFileSync(receiptOut, `${bid.receiptText}\n`, { flag: "wx" });
  process.stderr.write(`bid placed: ${bid.body.bidReceipts?.[0]?.bidId ?? "?"}\n`);

  // The auction resolves at its closesAt (the service's clock): look every second until then.
  const giveUpAt = Date.now() + Number(values["wait-seconds"]) * 1000;
  for (;;) {
    const market = await client.getMarket(marketId);
    if (market.state === "closed") break;
    if (Date.now() > giveUpAt) {
      process.stdout.write(`${JSON.stringify({ principalId: identity.principalId, outcome: "open" })}\n`);
      process.exitCode = 1;
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  const outcome = await client.getMyOutcome(marketId);
  const won = outcome.commitments.find((commitment) => commitment.participantPrincipalId === identity.principalId);
  if (won === undefined) {
    process.stdout.write(`${JSON.stringify({ principalId: identity.principalId, outcome: "lost" })}\n`);
    return;
  }
  if (won.state === "awaiting_confirmations" && (won.requiredConfirmationPrincipalIds ?? []).includes(identity.principalId)) {
    await client.confirmCommitment(won.id, { principalId: identity.principalId });
  }
  process.stdout.write(`${JSON.stringify({ principalId: identity.principalId, outcome: "won", commitmentId: won.id, price: won.terms.pricing })}\n`);
}

// A refusal is one line (what was asked, status, code, message, request id), not a stack trace.
await main(values.identity, values.market).catch((error: unknown) => {
  process.stderr.write(`auction-bidder: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
