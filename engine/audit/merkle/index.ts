/**
 * RFC 9162 Merkle trees for the logs' signed heads (issue 29): the tree, its proofs, their
 * verification and their JSON encoding. Pure JavaScript throughout (no Node API), so the client SDK
 * can verify proofs in a browser with these same files. The format is in docs/proofs.md.
 */
export { HASH_BYTES, emptyTreeHash, isHash, leafHash, nodeHash, sameHash } from "@market-service/client/audit";
export { MerkleLog } from "./merkle-log.js";
export { checkConsistency, checkInclusion, rootFromInclusionProof, verifyConsistency, verifyInclusion, type ProofCheck } from "@market-service/client/audit";
export {
  ProofFormatError,
  decodeConsistencyProof,
  decodeInclusionProof,
  encodeConsistencyProof,
  encodeInclusionProof,
  hashFromHex,
  hashToHex,
  type ConsistencyProof,
  type ConsistencyProofJson,
  type InclusionProof,
  type InclusionProofJson,
} from "@market-service/client/audit";
