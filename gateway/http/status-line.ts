/**
 * HTTP status lines with reason phrases ("201 Created"). uWS writes whatever string it is given
 * after "HTTP/1.1 ", and a bare "201" is legal but unfriendly, so the lines are built once from
 * Node's table instead of being formatted per response.
 */
import { STATUS_CODES } from "node:http";

const STATUS_LINES = new Map<number, string>();
for (const [code, reason] of Object.entries(STATUS_CODES)) {
  const status = Number(code);
  // 1xx are interim responses; a handler's reply is always final.
  if (status >= 200 && status <= 599 && reason !== undefined) STATUS_LINES.set(status, `${status} ${reason}`);
}

/** The status line for a final status, or undefined for a code Node does not name. */
export function statusLine(status: number): string | undefined {
  return STATUS_LINES.get(status);
}
