/**
 * The auction countdown's text. Display only: it is computed from the browser's clock, which may
 * differ from the service's; the auction closes by the service's clock, and the page shows the
 * result when the `sealed_auction.resolved` event arrives, whatever the countdown said.
 */

/** `closesAtIso` minus `nowMs`, as `2 d 03:04:05`, `03:04:05` or `04:05`; `undefined` once passed. */
export function remainingText(closesAtIso: string, nowMs: number): string | undefined {
  const closesAtMs = Date.parse(closesAtIso);
  if (Number.isNaN(closesAtMs)) return undefined;
  const left = closesAtMs - nowMs;
  if (left <= 0) return undefined;
  // Rounded up: the display reaches 00:00 only when the deadline has passed.
  const totalSeconds = Math.ceil(left / 1000);
  const days = Math.floor(totalSeconds / 86_400);
  const hours = Math.floor((totalSeconds % 86_400) / 3_600);
  const minutes = Math.floor((totalSeconds % 3_600) / 60);
  const seconds = totalSeconds % 60;
  const mmss = `${pad(minutes)}:${pad(seconds)}`;
  if (days > 0) return `${days} d ${pad(hours)}:${mmss}`;
  if (hours > 0) return `${pad(hours)}:${mmss}`;
  return mmss;
}

function pad(n: number): string {
  return String(n).padStart(2, "0");
}
