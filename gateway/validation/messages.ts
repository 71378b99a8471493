/**
 * Turns typia validation errors into one clear message naming the member (`$.subject.schema`): a
 * client branches on the code (`invalid_request`), a human reads the message.
 */
import type { IValidation } from "typia";

export function validationMessage(errors: readonly IValidation.IError[], prefix = "$"): string {
  const first = errors[0];
  if (first === undefined) return "invalid request body";
  const where = `${prefix}${first.path.slice("$input".length)}`;
  if (first.expected === "undefined") return `unknown member ${where}`;
  if (first.value === undefined) return `missing member ${where} (expected ${first.expected})`;
  return `invalid value at ${where}: expected ${first.expected}`;
}
