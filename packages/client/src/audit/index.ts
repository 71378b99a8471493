/**
 * Checking what the service signs and proves, with nothing but the bytes (docs/proofs.md): receipts
 * and signed heads, Merkle inclusion and consistency proofs (RFC 9162), proof files, and the audit
 * key history. The client checks receipts with these (`checkReceiptProof`); the service signs, builds
 * and serves heads and proofs with the same code.
 */
export * from "./key-history.js";
export * from "./key-id.js";
export * from "./proof-file.js";
export * from "./proof-format.js";
export * from "./proof-shape.js";
export * from "./proof-verify.js";
export * from "./receipt-check.js";
export * from "./receipt-command.js";
export * from "./receipt.js";
export * from "./signed-head.js";
export * from "./tree-hash.js";
