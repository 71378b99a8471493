/** The client's base64url: the engine's pure one (engine/bytes-base64url.ts), shared with the audit key history. */
export { base64UrlDecode, base64UrlEncode } from "../../engine/bytes-base64url.js";
