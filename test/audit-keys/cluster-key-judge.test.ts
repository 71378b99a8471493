/**
 * How a node's key history stands against the cluster's recorded one (engine/cluster/cluster-key-history.ts
 * judgeKeyHistory): the rule that decides, at a cluster node's start, between joining, recording a
 * rotation and refusing. Real Ed25519 keys and endorsements (node:crypto).
 */
import { generateKeyPairSync, sign, type KeyObject } from "node:crypto";
import { describe, expect, it } from "vitest";
import { judgeKeyHistory } from "../../engine/cluster/cluster-key-history.js";
import { endorsementMessage, extendKeyHistory, firstKeyHistory, type KeyHistory } from "@market-service/client/audit";
import { rawEd25519PublicKey } from "../../engine/audit/signing/audit-signer.js";
import { base64UrlEncode } from "@market-service/client/wire";

function newKey(): KeyObject {
  return generateKeyPairSync("ed25519").privateKey;
}

/** `history` extended by `next`, endorsed by `by` (the history's last key). */
function extend(history: KeyHistory, by: KeyObject, next: KeyObject, atMs: number): KeyHistory {
  const extended = extendKeyHistory(history, rawEd25519PublicKey(next), atMs, (message) => new Uint8Array(sign(null, message, by)));
  if (!extended.ok) throw new Error(extended.problem);
  return extended.history;
}

describe("judgeKeyHistory (a node's history against the cluster's)", () => {
  const k1 = newKey();
  const k2 = newKey();
  const k3 = newKey();
  const first = firstKeyHistory(rawEd25519PublicKey(k1));
  const second = extend(first, k1, k2, 1_000);
  const third = extend(second, k2, k3, 2_000);

  it("same current key: same (also when the node has no history file for a rotated key)", () => {
    expect(judgeKeyHistory(first, first)).toBe("same");
    expect(judgeKeyHistory(second, firstKeyHistory(rawEd25519PublicKey(k2)))).toBe("same");
  });

  it("a history that starts with the recorded keys and goes on: extends (by one key or several)", () => {
    expect(judgeKeyHistory(first, second)).toBe("extends");
    expect(judgeKeyHistory(first, third)).toBe("extends");
  });

  it("the recorded keys ahead of the node's: older", () => {
    expect(judgeKeyHistory(second, first)).toBe("older");
    expect(judgeKeyHistory(third, second)).toBe("older");
  });

  it("another key, a history forked from the record, or an extension whose chain does not verify: other", () => {
    expect(judgeKeyHistory(first, firstKeyHistory(rawEd25519PublicKey(newKey())))).toBe("other");
    // Forked: k1 endorses a different second key than the recorded one.
    expect(judgeKeyHistory(second, extend(first, k1, newKey(), 1_500))).toBe("other");
    // The recorded prefix and a third key whose endorsement is not k2's signature.
    const impostor = newKey();
    const last = third.keys[2] as KeyHistory["keys"][number];
    const badEndorsement = base64UrlEncode(new Uint8Array(sign(null, endorsementMessage(last), impostor)));
    const forged: KeyHistory = { ...third, keys: [...second.keys, { ...last, endorsement: badEndorsement }] };
    expect(judgeKeyHistory(second, forged)).toBe("other");
  });
});
