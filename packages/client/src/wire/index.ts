/**
 * The wire: every shape the HTTP API sends and receives (requests, replies, events, errors, receipts'
 * heads and proofs), declared once, here. The service imports these declarations (its validators,
 * MCP and OpenAPI schemas are generated from them with typia, whose type tags they carry); the
 * client's methods are typed with them. Beside the types: the constants that enumerate them, and the
 * encodings of the identifiers and bytes they hold (ids, base64url).
 */
export * from "./auction.js";
export * from "./audit-log.js";
export * from "./base64url.js";
export * from "./command.js";
export * from "./commitment.js";
export * from "./errors.js";
export * from "./event.js";
export * from "./health.js";
export * from "./identity.js";
export * from "./ids.js";
export * from "./market.js";
export * from "./outcome.js";
export * from "./record.js";
export * from "./results.js";
export * from "./shared.js";
