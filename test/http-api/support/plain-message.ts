/**
 * What a validation message must look like to a person (issue 25 §4): it names the field and
 * carries no trace of typia's type notation.
 */
import { expect } from "vitest";

/** Anything of typia's notation that must never reach a client. */
export const TYPIA_SYNTAX = /\$input|&|<|>|MinLength|MaxLength|Pattern|Format|Minimum|Maximum|MinItems|MaxItems|UniqueItems|Type\b|undefined|Record|Array/;

export function expectPlainMessage(message: string, field: string): void {
  expect(message, message).not.toMatch(TYPIA_SYNTAX);
  expect(message.startsWith(`${field}: must be `) || message.startsWith(`missing member ${field} (`) || message === `unknown member ${field}`, `"${message}" should name ${field}`).toBe(true);
}
