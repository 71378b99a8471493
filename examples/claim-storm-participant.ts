/**
 * One participant of a claim storm, with the client SDK: claim a place in a first-come direct-claim
 * market with an identity file's key, and say whether it was won. A claim that meets a restart or an
 * overloaded service is retried with the same commandId (never counted twice); a full market is
 * `capacity_exhausted`, told apart with its guard. A won place's receipt is saved, to prove later
 * that the claim was accepted. Run many at once against a local service (docs/client.md, "Examples"):
 *
 *   for who in alice bob carol; do
 *     node --import tsx examples/claim-storm-participant.ts --url http://127.0.0.1:8080 \
 *       --identity ids/$who.identity.json --market table-1 --receipt-out $who.receipt.json &
 *   done; wait
 *
 * Prints one JSON line: {"principalId","outcome":"won"|"full","commitmentId"?,"attempts"?}.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { Ed25519Session, errorGuards, MarketClient, type IdentityFile } from "market-service/client";

const { values } = parseArgs({ options: { url: { type: "string", default: "http://127.0.0.1:8080" }, identity: { type: "string" }, market: { type: "string" }, "receipt-out": { type: "string" } } });
if (values.identity === undefined || values.market === undefined) {
  process.stderr.write("usage: claim-storm-participant.ts --identity FILE --market ID [--url U] [--receipt-out FILE]\n");
  process.exit(2);
}

const identity = JSON.parse(readFileSync(values.identity, "utf8")) as IdentityFile;
const client = new MarketClient({ baseUrl: values.url, credentials: new Ed25519Session(identity), retry: { maxAttempts: 8, maxElapsedMs: 60_000 } });
try {
  const claimed = await client.submitDirectClaim(values.market, { principalId: identity.principalId });
  if (values["receipt-out"] !== undefined && claimed.receiptText !== null) writeFileSync(values["receipt-out"], `${claimed.receiptText}\n`, { flag: "wx" });
  const commitmentId = claimed.body.commitments[0]?.id;
  process.stdout.write(`${JSON.stringify({ principalId: identity.principalId, outcome: "won", commitmentId, attempts: claimed.attempts })}\n`);
} catch (error) {
  if (!errorGuards.capacity_exhausted(error)) throw error;
  process.stdout.write(`${JSON.stringify({ principalId: identity.principalId, outcome: "full" })}\n`);
}
