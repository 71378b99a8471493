// The engine's commands, and the wire shapes they are made of (declared in @market-service/client).
export type * from "@market-service/client/wire";
export type * from "./command.js";
export { COMMAND_TYPES, ERROR_CODES, EVENT_TYPES, DIRECT_CLAIM_PRESET, SEALED_AUCTION_PRESET, AUTHORITY_SCOPES, MAX_IDENTIFIER_LENGTH, MAX_SAFE_INTEGER, MAX_SHORT_STRING_LENGTH } from "@market-service/client/wire";
export { SYSTEM_IDENTITY } from "./command.js";
