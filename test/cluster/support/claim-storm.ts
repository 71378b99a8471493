/**
 * A hot-market claim storm against a ServiceCluster, as a real client would run it: many
 * provisioned participants each claim once, a bounded number in flight, through the nodes the test
 * names; a claim answered 503 (nobody serves the partition right now) or not answered at all (a
 * node died under it) is sent again with the SAME commandId until it gets a definitive answer or
 * its time is up. Every attempt's send and answer times are kept, so a test can tell what was
 * acknowledged after a fault and how long the market took to answer again.
 *
 * And the checks every storm ends with: what was acknowledged is in the market's record, capacity
 * is not exceeded, nobody holds two commitments, and a retry gets the original reply.
 */
import { MarketClient } from "@market-service/client";
import { OPERATOR, eventually } from "../../process/support.js";
import { claimBody, request, requestOnce, type ClusterPrincipal } from "./cluster-clients.js";
import type { ServiceCluster } from "./service-cluster.js";

/** One answer a claim got (a definitive one, or a 503 / network failure that was retried). */
export interface ClaimAttempt {
  readonly node: number;
  readonly sentAtMs: number;
  readonly answeredAtMs: number;
  /** The HTTP status, or 0 when no HTTP answer came (connection refused or reset). */
  readonly status: number;
  readonly text: string;
}

export interface ClaimOutcome {
  readonly who: ClusterPrincipal;
  readonly commandId: string;
  readonly attempts: ClaimAttempt[];
  /** The definitive answer (any status but 503 and "no answer"), if one came in time. */
  final: ClaimAttempt | undefined;
}

export interface StormOptions {
  readonly cluster: ServiceCluster;
  readonly marketId: string;
  readonly claimers: readonly ClusterPrincipal[];
  /** The nodes claims are sent through, round robin (a node not running is skipped). */
  readonly through: readonly number[];
  /** Claims in flight at once. */
  readonly concurrency: number;
  /** How long one claim is retried before it is given up (then its `final` stays undefined). */
  readonly retryForMs: number;
  /** Pause between a 503 (or no answer) and the retry. */
  readonly retryDelayMs?: number;
  /** Called with every answer as it arrives (e.g. to kill a node after the n-th success). */
  readonly onAttempt?: (attempt: ClaimAttempt, outcome: ClaimOutcome) => void;
  /** Prefix of the claims' commandIds (`<prefix>-<i>`)... */
  readonly commandPrefix: string;
  /** ...unless they are given, one per claimer. */
  readonly commandIds?: readonly string[];
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether an answer is worth retrying with the same commandId: unavailable, or no answer at all. */
export function retryable(status: number): boolean {
  return status === 503 || status === 0;
}

/** Runs the storm; resolves once every claim has a definitive answer or has run out of time. */
export async function claimStorm(options: StormOptions): Promise<ClaimOutcome[]> {
  const { cluster, marketId, claimers, through, concurrency, retryForMs } = options;
  const retryDelayMs = options.retryDelayMs ?? 100;
  const outcomes: ClaimOutcome[] = claimers.map((who, i) => ({ who, commandId: options.commandIds?.[i] ?? `${options.commandPrefix}-${i}`, attempts: [], final: undefined }));
  let next = 0;
  let turn = 0;
  const pickNode = (): number => {
    for (let tried = 0; tried < through.length; tried += 1) {
      const node = through[turn++ % through.length] as number;
      if (cluster.running(node)) return node;
    }
    throw new Error(`none of nodes ${through.join(", ")} is running`);
  };
  const claimOne = async (outcome: ClaimOutcome): Promise<void> => {
    const giveUpAtMs = performance.now() + retryForMs;
    for (;;) {
      const node = pickNode();
      const sentAtMs = performance.now();
      let status = 0;
      let text = "";
      try {
        const answer = await requestOnce(cluster, node, "POST", `/v1/markets/${marketId}/direct-claims`, outcome.who, claimBody(outcome.commandId, outcome.who));
        status = answer.status;
        text = answer.text;
      } catch (error) {
        text = error instanceof Error ? error.message : String(error);
      }
      const attempt: ClaimAttempt = { node, sentAtMs, answeredAtMs: performance.now(), status, text };
      outcome.attempts.push(attempt);
      if (!retryable(status)) outcome.final = attempt;
      options.onAttempt?.(attempt, outcome);
      if (outcome.final !== undefined || performance.now() > giveUpAtMs) return;
      await pause(retryDelayMs);
    }
  };
  await Promise.all(
    Array.from({ length: Math.min(concurrency, outcomes.length) }, async () => {
      while (next < outcomes.length) await claimOne(outcomes[next++] as ClaimOutcome);
    }),
  );
  return outcomes;
}

/** Summary of a storm for the report and for failure messages. */
export function stormSummary(outcomes: readonly ClaimOutcome[]): { ok: number; refused: number; unanswered: number; retried: number; attempts: number; statuses: Record<string, number> } {
  const statuses: Record<string, number> = {};
  let attempts = 0;
  for (const outcome of outcomes) {
    for (const attempt of outcome.attempts) {
      statuses[attempt.status] = (statuses[attempt.status] ?? 0) + 1;
      attempts += 1;
    }
  }
  return {
    ok: outcomes.filter((outcome) => outcome.final?.status === 200).length,
    refused: outcomes.filter((outcome) => outcome.final !== undefined && outcome.final.status !== 200).length,
    unanswered: outcomes.filter((outcome) => outcome.final === undefined).length,
    retried: outcomes.filter((outcome) => outcome.attempts.length > 1).length,
    attempts,
    statuses,
  };
}

/**
 * Provisions `count` principals `<prefix>-<i>` spread over the running nodes, a few at a time, and
 * resolves once every running node accepts every token (identities travel by the identity stream).
 */
export async function provisionMany(cluster: ServiceCluster, prefix: string, count: number, concurrency = 8): Promise<ClusterPrincipal[]> {
  const running = Array.from({ length: cluster.size }, (_, i) => i).filter((i) => cluster.running(i));
  const principals: ClusterPrincipal[] = new Array<ClusterPrincipal>(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        const client = new MarketClient({ baseUrl: cluster.url(running[i % running.length] as number) });
        const principalId = `${prefix}-${i}`;
        const identity = await client.provisionNewIdentity({ principalId }, { credentials: { kind: "hmac", ...OPERATOR } });
        const { accessToken } = await client.signIn(identity);
        principals[i] = { principalId, token: accessToken };
      }
    }),
  );
  await everyNodeAccepts(cluster, principals, concurrency);
  return principals;
}

/** Resolves once every running node accepts every one of `principals`' tokens (not 401). */
export async function everyNodeAccepts(cluster: ServiceCluster, principals: readonly ClusterPrincipal[], concurrency = 8): Promise<void> {
  const checks: Array<{ node: number; who: ClusterPrincipal }> = [];
  for (let node = 0; node < cluster.size; node += 1) if (cluster.running(node)) for (const who of principals) checks.push({ node, who });
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < checks.length) {
        const { node, who } = checks[next++] as { node: number; who: ClusterPrincipal };
        await eventually(async () => (await request(cluster, node, "GET", "/v1/markets/no-such-market", who)).status !== 401, 60_000, `node ${node} accepting ${who.principalId}'s token`);
      }
    }),
  );
}

interface RecordedCommitment {
  id: string;
  participantPrincipalId: string;
  state: string;
}

interface RecordedCommand {
  type: string;
  status: string;
  occurredAt: string;
  recordedAt: string;
  identity: { principalId: string };
  request: Record<string, unknown>;
}

export interface MarketRecordView {
  market: MarketView;
  commitments: RecordedCommitment[];
  commands: RecordedCommand[];
  events: Array<{ type: string; data: Record<string, unknown> }>;
  integrity: { recordHash: string };
}

/** The market's record (creator only) read through `node`, with a bounded retry while its partition changes owner. */
export async function readRecord(cluster: ServiceCluster, node: number, creator: ClusterPrincipal, marketId: string): Promise<{ text: string; record: MarketRecordView }> {
  let last = "";
  let found: { text: string; record: MarketRecordView } | undefined;
  await eventually(async () => {
    const answer = await request(cluster, node, "GET", `/v1/markets/${marketId}/record`, creator);
    last = `${answer.status} ${answer.text.slice(0, 300)}`;
    if (answer.status === 200) found = { text: answer.text, record: answer.body as MarketRecordView };
    else if (!retryable(answer.status)) throw new Error(`record of ${marketId} via node ${node}: ${last}`);
    return found !== undefined;
  }, 60_000, `the record of ${marketId} via node ${node}`).catch((error: unknown) => {
    throw new Error(`${String(error)}; last answer ${last}`);
  });
  return found as { text: string; record: MarketRecordView };
}

export interface MarketView {
  version: number;
  state: string;
  mechanismState: { allocated?: number; bidCount?: number; resolution?: string; winningBidId?: string };
}

/** GET of a market through `node`, retried while its partition changes owner. */
export async function readMarket(cluster: ServiceCluster, node: number, who: ClusterPrincipal, marketId: string): Promise<{ text: string; body: MarketView }> {
  let found: { text: string; body: MarketView } | undefined;
  let last = "";
  await eventually(async () => {
    const answer = await request(cluster, node, "GET", `/v1/markets/${marketId}`, who);
    last = `${answer.status} ${answer.text.slice(0, 300)}`;
    if (answer.status === 200) found = { text: answer.text, body: answer.body as MarketView };
    else if (!retryable(answer.status)) throw new Error(`market ${marketId} via node ${node}: ${last}`);
    return found !== undefined;
  }, 60_000, `market ${marketId} via node ${node}`).catch((error: unknown) => {
    throw new Error(`${String(error)}; last answer ${last}`);
  });
  return found as { text: string; body: MarketView };
}

interface ClaimReply {
  market: MarketView;
  commitments: RecordedCommitment[];
}

/**
 * Everything a storm must leave true, as a list of what is wrong (empty when all holds), checked
 * through every running node:
 * - every claim got a definitive answer: 200, or 409 `capacity_exhausted`;
 * - the market and its record read the same on every node, and its allocation is the number of 200s, within capacity;
 * - the record's commitments are exactly the acknowledged claims' (same ids), one per participant,
 *   and each acknowledged commandId was executed once;
 * - a retry of every claim (same commandId, through another node) returns the original reply byte for byte.
 */
export async function stormProblems(cluster: ServiceCluster, creator: ClusterPrincipal, marketId: string, capacity: number, outcomes: readonly ClaimOutcome[]): Promise<string[]> {
  const problems: string[] = [];
  const running = Array.from({ length: cluster.size }, (_, i) => i).filter((i) => cluster.running(i));
  const acknowledged = outcomes.filter((outcome) => outcome.final?.status === 200);
  for (const outcome of outcomes) {
    const final = outcome.final;
    if (final === undefined) problems.push(`${outcome.commandId}: no definitive answer after ${outcome.attempts.length} attempts (last ${outcome.attempts.at(-1)?.status} ${outcome.attempts.at(-1)?.text.slice(0, 200)})`);
    else if (final.status !== 200 && !(final.status === 409 && final.text.includes('"capacity_exhausted"'))) problems.push(`${outcome.commandId}: answered ${final.status} ${final.text.slice(0, 200)}`);
  }

  const views = await Promise.all(running.map((node) => readMarket(cluster, node, creator, marketId)));
  if (new Set(views.map((view) => view.text)).size !== 1) problems.push(`the market reads differently on nodes ${running.join(", ")}`);
  const allocated = views[0]?.body.mechanismState.allocated;
  if (allocated !== acknowledged.length) problems.push(`allocated ${allocated} but ${acknowledged.length} claims acknowledged`);
  if (allocated === undefined || allocated > capacity) problems.push(`allocated ${allocated} exceeds capacity ${capacity}`);

  // The record, through every node (the owner's own read and forwarded ones), byte for byte the same.
  const records = await Promise.all(running.map((node) => readRecord(cluster, node, creator, marketId)));
  if (new Set(records.map((read) => read.text)).size !== 1) problems.push(`the record reads differently on nodes ${running.join(", ")}`);
  const { record } = records[0] as { record: MarketRecordView };
  if (record.commitments.length > capacity) problems.push(`${record.commitments.length} commitments for capacity ${capacity}`);
  const byParticipant = new Map<string, RecordedCommitment[]>();
  for (const commitment of record.commitments) byParticipant.set(commitment.participantPrincipalId, [...(byParticipant.get(commitment.participantPrincipalId) ?? []), commitment]);
  for (const [participant, held] of byParticipant) if (held.length !== 1) problems.push(`${participant} holds ${held.length} commitments`);
  const ackedParticipants = new Set(acknowledged.map((outcome) => outcome.who.principalId));
  for (const participant of byParticipant.keys()) if (!ackedParticipants.has(participant)) problems.push(`${participant} holds a commitment but no claim of it was acknowledged`);
  for (const outcome of acknowledged) {
    const held = byParticipant.get(outcome.who.principalId) ?? [];
    const reply = JSON.parse(outcome.final?.text ?? "{}") as ClaimReply;
    const ackedId = reply.commitments?.[0]?.id;
    if (held.length !== 1 || held[0]?.id !== ackedId) problems.push(`${outcome.commandId} acknowledged commitment ${ackedId}, the record has ${JSON.stringify(held.map((c) => c.id))} for ${outcome.who.principalId}`);
  }
  const executed = new Map<string, number>();
  for (const command of record.commands) {
    if (command.type !== "direct_claim.submit") continue;
    const commandId = String(command.request["commandId"]);
    executed.set(commandId, (executed.get(commandId) ?? 0) + 1);
  }
  for (const [commandId, times] of executed) if (times !== 1) problems.push(`${commandId} recorded ${times} times`);
  for (const outcome of outcomes) if (outcome.final !== undefined && executed.get(outcome.commandId) !== 1) problems.push(`${outcome.commandId} answered ${outcome.final.status} but recorded ${executed.get(outcome.commandId) ?? 0} times`);

  // Retries: each claim again, with its commandId, through the nodes in turn (not where it was answered).
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < outcomes.length) {
        const i = next++;
        const outcome = outcomes[i] as ClaimOutcome;
        const final = outcome.final;
        if (final === undefined) continue;
        const node = running[(running.indexOf(final.node) + 1 + (i % Math.max(1, running.length - 1))) % running.length] as number;
        // A 503 says "retry" (the partition may be changing owner): only a definitive answer is compared.
        const [retried] = await claimStorm({ cluster, marketId, claimers: [outcome.who], through: [node], concurrency: 1, retryForMs: 60_000, commandPrefix: outcome.commandId, commandIds: [outcome.commandId] });
        const again = retried?.final ?? retried?.attempts.at(-1) ?? { status: 0, text: "no attempt" };
        if (again.status !== final.status || again.text !== final.text) {
          problems.push(`retry of ${outcome.commandId} via node ${node}: ${again.status} ${again.text.slice(0, 200)}; original ${final.status} ${final.text.slice(0, 200)}`);
        }
      }
    }),
  );
  return problems;
}
