/**
 * A prober of a cluster's service nodes, as clients see them under faults (bench:cluster-faults,
 * test/cluster/cluster-faults-edges.test.ts): claims sent at a steady pace through the nodes in
 * turn and reads of one market, each without waiting for the ones before, every answer recorded
 * (status, latency, the message of a 503); a claim answered 503 or not at all is sent again with the
 * same commandId, as a client would, and its retries are recorded apart. Then what the answers say:
 * how long nothing was decided after a fault, how long retries were refused after new claims were
 * decided again, and which 503 messages break the plain-words rule of docs/errors.md.
 */
import { randomBytes } from "node:crypto";
import { MarketClient, MarketServiceError } from "@market-service/client";
import { plainWordsProblem } from "../scripts/plain-words.js";

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const round1 = (n: number): number => Math.round(n * 10) / 10;

export interface ProberOptions {
  /** Markets claimed on, in turn (one claim each in turn). */
  readonly markets: readonly string[];
  /** The market read (by the creator), every `readEveryMs`; none without it. */
  readonly readMarket?: string;
  readonly claimEveryMs?: number;
  readonly readEveryMs?: number;
  /** An identity write every 500 ms (provisioning), recorded as "provision". */
  readonly provision?: () => Promise<unknown>;
  /** Retry claims answered 503 or not at all with their commandId (default true). */
  readonly retries?: boolean;
  /** How often a claim is sent again (default 200 ms)... */
  readonly retryEveryMs?: number;
  /** ...for how long (default 20 s)... */
  readonly retryForMs?: number;
  /** ...by at most this many claims at once (default 40; the others are counted, not retried). */
  readonly retryingAtMost?: number;
}

export interface Answer {
  /** "retry": a claim sent again with the commandId of one answered 503 or not at all. */
  kind: "claim" | "retry" | "read" | "provision";
  node: number;
  marketId?: string;
  /** A claim's (and its retries') commandId and participant. */
  commandId?: string;
  principalId?: string;
  sentAtMs: number;
  doneAtMs: number;
  status: string;
  message?: string;
}

export function errorMessage(text: string): string {
  try {
    return (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? text.slice(0, 200);
  } catch {
    return text.slice(0, 200);
  }
}

/** Claims and reads sent at a steady pace, whatever the earlier ones are doing; claims retried as a client would. */
export class Prober {
  readonly answers: Answer[] = [];
  private running = true;
  private readonly loops: Array<Promise<void>> = [];
  private readonly inFlight = new Set<Promise<void>>();
  private count = 0;
  private retrying = 0;
  /** Claims answered 503 or not at all that were not retried (`retryingAtMost` claims were retrying). */
  notRetried = 0;

  constructor(
    private readonly clients: readonly MarketClient[],
    private readonly participants: ReadonlyArray<{ principalId: string; token: string }>,
    private readonly creatorToken: string,
    private readonly options: ProberOptions,
  ) {
    this.loops.push(this.loop(options.claimEveryMs ?? 25, (node) => this.claim(node)));
    const readMarket = options.readMarket;
    if (readMarket !== undefined) this.loops.push(this.loop(options.readEveryMs ?? 100, (node) => this.read(node, readMarket)));
    const provision = options.provision;
    if (provision !== undefined) this.loops.push(this.loop(500, () => this.record("provision", 0, {}, () => provision().then(() => ({ status: 201, text: "" })))));
  }

  private async loop(everyMs: number, send: (node: number) => Promise<unknown>): Promise<void> {
    for (let n = 0; this.running; n += 1) {
      const sent = send(n % this.clients.length).then(() => undefined);
      this.inFlight.add(sent);
      void sent.finally(() => this.inFlight.delete(sent));
      await pause(everyMs);
    }
  }

  private async record(kind: Answer["kind"], node: number, about: Pick<Answer, "marketId" | "commandId" | "principalId">, call: () => Promise<{ status: number; text: string }>): Promise<Answer> {
    const sentAtMs = performance.now();
    let status: string;
    let message: string | undefined;
    try {
      const reply = await call();
      status = String(reply.status);
      if (reply.status >= 500) message = errorMessage(reply.text);
    } catch (error) {
      if (error instanceof MarketServiceError && error.code !== "unreachable") {
        status = String(error.status);
        message = error.serviceMessage;
      } else {
        status = "no answer";
        message = (error instanceof Error ? error.message : String(error)).slice(0, 200);
      }
    }
    const answer: Answer = { kind, node, sentAtMs, doneAtMs: performance.now(), status, ...about, ...(message === undefined ? {} : { message }) };
    this.answers.push(answer);
    return answer;
  }

  private async claim(node: number): Promise<void> {
    const n = this.count++;
    const who = this.participants[n % this.participants.length] as { principalId: string; token: string };
    const marketId = this.options.markets[n % this.options.markets.length] as string;
    const body = { commandId: `probe-${randomBytes(6).toString("hex")}-${n}`, principalId: who.principalId };
    const send = (kind: Answer["kind"], through: number) =>
      this.record(kind, through, { marketId, commandId: body.commandId, principalId: who.principalId }, () => (this.clients[through] as MarketClient).request("POST", `/v1/markets/${marketId}/direct-claims`, { body, credentials: { kind: "bearer", token: who.token } }));
    const first = await send("claim", node);
    if (decided(first) || this.options.retries === false) return;
    if (this.retrying >= (this.options.retryingAtMost ?? 40)) {
      this.notRetried += 1;
      return;
    }
    this.retrying += 1;
    try {
      const giveUpAtMs = first.sentAtMs + (this.options.retryForMs ?? 20_000);
      for (let attempt = 1; performance.now() < giveUpAtMs; attempt += 1) {
        await pause(this.options.retryEveryMs ?? 200);
        if (decided(await send("retry", (node + attempt) % this.clients.length))) return;
      }
    } finally {
      this.retrying -= 1;
    }
  }

  private read(node: number, marketId: string): Promise<Answer> {
    return this.record("read", node, { marketId }, () => (this.clients[node] as MarketClient).request("GET", `/v1/markets/${marketId}`, { credentials: { kind: "bearer", token: this.creatorToken } }));
  }

  /** Stops sending; resolves once every request sent has its answer and every retrying claim is decided or given up. */
  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }
}

/** Decided: the rules answered (a claim accepted, or refused because that participant holds one; a read 200). */
export const decided = (answer: Answer): boolean =>
  answer.status === "200" || ((answer.kind === "claim" || answer.kind === "retry") && answer.status === "409") || (answer.kind === "provision" && answer.status === "201");

/** The longest stretch after `fromMs` with no decided answer of `kind` (by answer time), and the first decided one sent after `fromMs`. */
export function outage(answers: readonly Answer[], kind: Answer["kind"], fromMs: number, toMs: number, marketId?: string): { firstDecidedAfterMs: number | null; longestGapMs: number; notDecided: Record<string, number>; slowestMs: number } {
  const mine = answers.filter((a) => a.kind === kind && a.sentAtMs >= fromMs - 5_000 && (marketId === undefined || a.marketId === marketId));
  const times = mine.filter((a) => decided(a) && a.doneAtMs >= fromMs).map((a) => a.doneAtMs).sort((a, b) => a - b);
  let longest = 0;
  let previous = fromMs;
  for (const t of [...times, toMs]) {
    longest = Math.max(longest, t - previous);
    previous = t;
  }
  const first = mine.filter((a) => decided(a) && a.sentAtMs >= fromMs).sort((a, b) => a.doneAtMs - b.doneAtMs)[0];
  const notDecided: Record<string, number> = {};
  for (const a of mine.filter((a) => !decided(a) && a.doneAtMs >= fromMs)) notDecided[a.status] = (notDecided[a.status] ?? 0) + 1;
  return {
    firstDecidedAfterMs: first === undefined ? null : round1(first.doneAtMs - fromMs),
    longestGapMs: round1(longest),
    notDecided,
    slowestMs: round1(Math.max(0, ...mine.filter((a) => a.doneAtMs >= fromMs).map((a) => a.doneAtMs - a.sentAtMs))),
  };
}

/**
 * Retries against new claims after a fault at `fromMs` (on `marketId`, or every market): when the
 * first new claim (sent after the fault) was decided, the first retry decided, and how many retries were still refused (503) after
 * new claims were decided again, the last of them how long after the fault.
 */
export function retriesAfter(answers: readonly Answer[], fromMs: number, marketId?: string): { firstNewClaimDecidedAfterMs: number | null; firstRetryDecidedAfterMs: number | null; refusedAfterNewClaimsDecided: number; lastRefusedAfterMs: number | null } {
  const firstDone = (list: readonly Answer[]) => Math.min(...list.map((a) => a.doneAtMs));
  if (marketId !== undefined) answers = answers.filter((a) => a.marketId === marketId);
  const newClaims = answers.filter((a) => a.kind === "claim" && a.sentAtMs >= fromMs && decided(a));
  const retries = answers.filter((a) => a.kind === "retry" && a.doneAtMs >= fromMs);
  const newDecidedAt = newClaims.length === 0 ? Number.POSITIVE_INFINITY : firstDone(newClaims);
  const decidedRetries = retries.filter(decided);
  const refusedLate = retries.filter((a) => a.status === "503" && a.doneAtMs > newDecidedAt);
  return {
    firstNewClaimDecidedAfterMs: newClaims.length === 0 ? null : round1(newDecidedAt - fromMs),
    firstRetryDecidedAfterMs: decidedRetries.length === 0 ? null : round1(firstDone(decidedRetries) - fromMs),
    refusedAfterNewClaimsDecided: refusedLate.length,
    lastRefusedAfterMs: refusedLate.length === 0 ? null : round1(Math.max(...refusedLate.map((a) => a.doneAtMs)) - fromMs),
  };
}

/** Per second since `fromMs`: answers of `kind` by status, and distinct messages of the undecided ones. */
export function bySecond(answers: readonly Answer[], kind: Answer["kind"], fromMs: number, seconds: number): Array<{ second: number; statuses: Record<string, number>; slowestMs: number }> {
  return Array.from({ length: seconds }, (_, second) => {
    const inSecond = answers.filter((a) => a.kind === kind && a.sentAtMs >= fromMs + second * 1000 && a.sentAtMs < fromMs + (second + 1) * 1000);
    const statuses: Record<string, number> = {};
    for (const a of inSecond) statuses[a.status] = (statuses[a.status] ?? 0) + 1;
    return { second, statuses, slowestMs: round1(Math.max(0, ...inSecond.map((a) => a.doneAtMs - a.sentAtMs))) };
  });
}

export function messages(answers: readonly Answer[], fromMs: number): string[] {
  return [...new Set(answers.filter((a) => a.sentAtMs >= fromMs && a.message !== undefined).map((a) => `${a.kind} ${a.status}: ${(a.message ?? "").replace(/\d+(\.\d+)?/g, "N")}`))].slice(0, 20);
}

/** The 503 messages that break the plain-words rule, each with what is wrong and how often it came. */
export function notPlain(answers: readonly Answer[]): Array<{ message: string; problem: string; count: number }> {
  const found = new Map<string, { message: string; problem: string; count: number }>();
  for (const a of answers) {
    if (a.status !== "503" || a.message === undefined) continue;
    const problem = plainWordsProblem(a.message);
    if (problem === undefined) continue;
    const key = a.message.replace(/\d+(\.\d+)?/g, "N");
    const entry = found.get(key) ?? { message: key, problem, count: 0 };
    entry.count += 1;
    found.set(key, entry);
  }
  return [...found.values()];
}

