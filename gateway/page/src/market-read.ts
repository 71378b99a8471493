/**
 * `GET /v1/markets/{marketId}` for the page: the market snapshot as JSON, or the service's refusal
 * (its error code and message). The token is sent as the Authorization header only.
 */

export type MarketRead = { ok: true; body: unknown } | { ok: false; code: string; message: string };

export async function readMarket(marketId: string, token: string, signal: AbortSignal): Promise<MarketRead> {
  let response: Response;
  try {
    response = await fetch(`/v1/markets/${encodeURIComponent(marketId)}`, {
      headers: { authorization: `Bearer ${token}`, accept: "application/json" },
      cache: "no-store",
      signal,
    });
  } catch (error) {
    return { ok: false, code: "network_error", message: error instanceof Error ? error.message : String(error) };
  }
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    return { ok: false, code: `http_${response.status}`, message: `the reply (HTTP ${response.status}) is not JSON` };
  }
  if (response.ok) return { ok: true, body };
  const error = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  return {
    ok: false,
    code: typeof error?.code === "string" ? error.code : `http_${response.status}`,
    message: typeof error?.message === "string" ? error.message : `HTTP ${response.status}`,
  };
}
