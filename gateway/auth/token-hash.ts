/**
 * How bearer and static tokens are stored and looked up: SHA-256 of the token's text (its UTF-8
 * bytes, which for issued tokens are the 43 ASCII characters), as unpadded base64url. Only this hash
 * is ever kept in memory or on disk. Looking up the hash instead of comparing tokens also makes the
 * Map lookup's timing useless to an attacker: it cannot steer the hash of its guesses.
 */
import { hash } from "node:crypto";

export function hashTokenText(token: string): string {
  return hash("sha256", token, "base64url");
}
