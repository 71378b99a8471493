/** Client helpers (pure JavaScript): key pairs, challenge signatures, HMAC request signing. */
export { base64UrlDecode, base64UrlEncode } from "./base64url.js";
export { generateKeyPair, publicKeyFromPrivateKey, signSigningPayload, type Ed25519KeyPair } from "./ed25519.js";
export { canonicalHmacString, signHmacRequest, type HmacSigningInput, type ServiceHmacHeaders } from "./hmac.js";
export { ServiceClient, ServiceReplyError, type Credentials, type IdentityFile, type ServiceClientOptions, type ServiceResponse } from "./service-client.js";
export { ServiceUnreachableError } from "./unreachable.js";
