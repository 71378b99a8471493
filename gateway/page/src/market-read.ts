/**
 * `GET /v1/markets/{marketId}` for the page, through the SDK's MarketClient (@market-service/client):
 * the market snapshot, or the service's refusal (its error code and message). The token is the
 * client's bearer credential: sent as the Authorization header only.
 */
import { MarketClient, MarketServiceError } from "@market-service/client";

export type MarketRead = { ok: true; body: unknown } | { ok: false; code: string; message: string };

export async function readMarket(marketId: string, token: string): Promise<MarketRead> {
  // The page and the API share an origin; the SDK retries a read on network errors, 429 and 503.
  const client = new MarketClient({ baseUrl: location.origin, credentials: { kind: "bearer", token } });
  try {
    return { ok: true, body: await client.getMarket(marketId) };
  } catch (error) {
    if (error instanceof MarketServiceError) return { ok: false, code: error.code, message: error.serviceMessage };
    return { ok: false, code: "page_error", message: error instanceof Error ? error.message : String(error) };
  }
}
