import { fc, test } from "@fast-check/vitest";
import { expect } from "vitest";
import { generateKeyPair } from "@market-service/client";
import type { IdentityState, IdentityStore } from "../../engine/identity/index.js";
import { OPERATOR, openHarness } from "./helpers.js";

const KEYS = Array.from({ length: 4 }, () => generateKeyPair().publicKey);
const ID = fc.constantFrom("a", "b", "c");
const op = fc.oneof(
  fc.record({ kind: fc.constant("provision" as const), principal: ID, actor: ID, key: ID, pk: fc.nat({ max: KEYS.length - 1 }) }),
  fc.record({ kind: fc.constant("issue" as const), principal: ID, delegate: ID, del: ID, hours: fc.option(fc.integer({ min: -1, max: 3 })) }),
  fc.record({ kind: fc.constant("revoke" as const), principal: ID, del: ID }),
  fc.record({ kind: fc.constant("disableActor" as const), actor: ID }),
  fc.record({ kind: fc.constant("revokeKey" as const), key: ID }),
  fc.record({ kind: fc.constant("retry" as const), back: fc.nat({ max: 5 }) }),
);

/** Everything observable about the state, as plain data. */
function view(state: IdentityState): unknown {
  const entries = <V>(m: Map<string, V>) => [...m.entries()].sort(([x], [y]) => (x < y ? -1 : 1));
  return {
    principals: entries(state.principals),
    actors: entries(state.actors),
    keys: entries(state.keys),
    keyIdByPublicKey: entries(state.keyIdByPublicKey),
    delegations: entries(state.delegations),
  };
}

test.prop([fc.array(op, { maxLength: 25 }), fc.integer({ min: 1, max: 6 })], { numRuns: 25 })(
  "a reopened store (snapshot + tail replay) has the same state and replies as the live one",
  async (ops, snapshotEvery) => {
    const h = await openHarness({ snapshotEveryCommands: snapshotEvery });
    const sent: Array<{ run: (store: IdentityStore) => Promise<unknown>; reply: unknown }> = [];
    let n = 0;
    for (const o of ops) {
      h.clock.advance(1_000);
      const commandId = `c${n++}`;
      let run: ((store: IdentityStore) => Promise<unknown>) | undefined;
      switch (o.kind) {
        case "provision":
          run = (store) => store.provisionIdentity(OPERATOR, { commandId, principalId: o.principal, actorId: o.actor, keyId: o.key, publicKey: KEYS[o.pk] ?? "" });
          break;
        case "issue": {
          const body = { commandId, delegationId: o.del, principalId: o.principal, delegateActorId: o.delegate, scopes: ["market:bid" as const] };
          const validUntil = o.hours === null ? undefined : new Date(h.clock.nowMs() + o.hours * 3_600_000).toISOString();
          run = (store) => store.issueDelegation(o.principal, validUntil === undefined ? body : { ...body, validUntil });
          break;
        }
        case "revoke":
          run = (store) => store.revokeDelegation(o.principal, o.del, { commandId, principalId: o.principal });
          break;
        case "disableActor":
          run = (store) => store.disableActor(OPERATOR, { commandId, actorId: o.actor });
          break;
        case "revokeKey":
          run = (store) => store.revokeKey(OPERATOR, { commandId, keyId: o.key });
          break;
        case "retry": {
          const earlier = sent[sent.length - 1 - o.back];
          if (earlier !== undefined) expect(await earlier.run(h.store)).toEqual(earlier.reply);
          continue;
        }
      }
      sent.push({ run, reply: await run(h.store) });
    }
    const live = view(h.store.state);
    const reopened = await h.reopen();
    expect(view(reopened.store.state)).toEqual(live);
    expect(reopened.index.size).toBe(h.index.size);
    const lsn = reopened.store.stats.lastLsn;
    // Every command, retried after the restart, gets its original reply and logs nothing.
    for (const { run, reply } of sent) expect(await run(reopened.store)).toEqual(reply);
    expect(reopened.store.stats.lastLsn).toBe(lsn);
  },
);
