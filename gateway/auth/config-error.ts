/** Configuration errors and the shared rule for secret text (HMAC secrets, static tokens). */

export class ConfigError extends Error {
  override name = "ConfigError";
  constructor(
    /** The environment variable (or file) at fault. */
    readonly setting: string,
    message: string,
  ) {
    super(`${setting}: ${message}`);
  }
}

/** HMAC secrets and static tokens: at least this many characters (≥ 192 bits as base64url). */
export const MIN_SECRET_LENGTH = 32;
export const MAX_SECRET_LENGTH = 1024;

/** Visible ASCII only, so a secret survives env files, shells and JSON unchanged. */
export function isValidSecretText(value: unknown): value is string {
  return (
    typeof value === "string" &&
    value.length >= MIN_SECRET_LENGTH &&
    value.length <= MAX_SECRET_LENGTH &&
    /^[\x21-\x7E]+$/.test(value)
  );
}
