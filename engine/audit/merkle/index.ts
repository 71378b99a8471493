/**
 * RFC 9162 Merkle trees for the logs' signed heads (issue 29): the service's tree (merkle-log.ts)
 * and the proofs it serves. The hashes, the proof checks and their JSON encoding are the client
 * SDK's (@market-service/client/audit, re-exported here), so the service builds and the SDK verifies
 * with the same code, in Node and in browsers. The format is in docs/proofs.md.
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
