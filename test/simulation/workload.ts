/**
 * What the clients do in a seed, drawn from it: creators open direct-claim markets (with or without
 * holds to confirm) and sealed auctions, participants claim (often on one hot market) and bid,
 * holders confirm or decline (or let a hold expire), and clients send commands again with the same
 * commandId at other nodes (after an answer, or two at once), or reuse a commandId for other content.
 * Identity commands (identity-workload.ts) go the same way.
 */
import type { Commitment, MarketActionResult, MechanismSelectionInput } from "@market-service/client/wire";
import { jsonText, type ShardReply } from "../../engine/shard-protocol/shard-protocol.js";
import { buildMarketCommand, type MarketOperation } from "../../gateway/api/market-api.js";
import type { Clients, Intent } from "./client.js";
import type { SimNode } from "./node/sim-node.js";
import type { Random } from "./random.js";
import type { Scheduler } from "./scheduler.js";
import { IdentityWorkload, type IdentityPlan } from "./identity-workload.js";

interface MarketPlan {
  readonly id: string;
  readonly creator: string;
  readonly createAtMs: number;
  readonly mechanism: "direct" | "auction";
  readonly capacity: number;
  readonly confirmation: "none" | "creator" | "participant" | "both";
  readonly holdSeconds: number;
  /** Auctions: how long after the create command the auction closes. */
  readonly closesAfterMs: number;
}

export interface WorkloadPlan {
  readonly markets: readonly MarketPlan[];
  readonly participants: readonly string[];
  /** Most claims go to the first market. */
  readonly hot: boolean;
  readonly actionsPerParticipant: number;
  /** Commands sent again to another node after their answer. */
  readonly resendRate: number;
  /** Commands sent to two nodes at once. */
  readonly twinRate: number;
  /** A commandId used again for other content. */
  readonly reuseRate: number;
  readonly confirmRate: number;
  /** Workload actions happen before this instant (simulated ms). */
  readonly activeMs: number;
  readonly identity: IdentityPlan;
}

export function drawWorkload(random: Random, activeMs: number, identity: IdentityPlan): WorkloadPlan {
  const creators = ["creator-1", "creator-2"];
  const participants = Array.from({ length: random.int(3, 10) }, (_, i) => `p${i + 1}`);
  const markets: MarketPlan[] = Array.from({ length: random.int(1, 5) }, (_, i) => {
    const mechanism = random.chance(0.3) ? "auction" : "direct";
    const confirmation = mechanism === "auction" ? "none" : random.pick(["none", "none", "creator", "participant", "both"] as const);
    return {
      id: `m${i + 1}`,
      creator: random.pick(creators),
      createAtMs: random.int(0, Math.min(3_000, activeMs / 3)),
      mechanism,
      capacity: random.int(1, 4),
      confirmation,
      holdSeconds: random.int(1, 4),
      closesAfterMs: random.int(3_000, Math.max(4_000, activeMs)),
    };
  });
  return {
    markets,
    participants,
    hot: random.chance(0.5),
    actionsPerParticipant: random.int(1, 4),
    resendRate: random.pick([0, 0.1, 0.3]),
    twinRate: random.pick([0, 0.05, 0.2]),
    reuseRate: random.pick([0, 0.03, 0.1]),
    confirmRate: random.pick([0.3, 0.7, 1]),
    activeMs,
    identity,
  };
}

const SUBJECT = { schema: "table-booking.v1", data: { venue: "Harbour", seats: 4 } };

export class Workload {
  private readonly counters = new Map<string, number>();
  private readonly used: Intent[] = [];
  /** Actions scheduled and not yet taken (a confirmation after a claim, a resend after a reply). */
  private scheduled = 0;
  private readonly identity: IdentityWorkload;

  constructor(
    private readonly plan: WorkloadPlan,
    private readonly scheduler: Scheduler,
    private readonly random: Random,
    private readonly clients: Clients,
    private readonly nodes: readonly SimNode[],
    /** Epoch milliseconds at simulated time 0 (auctions close at an instant). */
    private readonly epochMs: number,
    identityRandom: Random,
  ) {
    this.identity = new IdentityWorkload(plan.identity, identityRandom, clients, {
      at: (atMs, run) => this.at(atMs, run),
      later: (delayMs, run) => this.later(delayMs, run),
      commandId: (actor) => this.commandId(actor),
      dispatch: (intent) => this.dispatch(intent),
    });
  }

  start(): void {
    for (const market of this.plan.markets) this.at(market.createAtMs, () => this.create(market));
    this.identity.start();
  }

  /** Whether the workload will send nothing more by itself (the checks of a quiet world wait for it). */
  get idle(): boolean {
    return this.scheduled === 0;
  }

  private at(atMs: number, run: () => void): void {
    this.later(atMs - this.scheduler.nowMs, run);
  }

  private later(delayMs: number, run: () => void): void {
    this.scheduled += 1;
    this.scheduler.after(delayMs, this.clients.actor, () => {
      this.scheduled -= 1;
      run();
    });
  }

  private commandId(actor: string): string {
    const next = (this.counters.get(actor) ?? 0) + 1;
    this.counters.set(actor, next);
    return `${actor}-c${next}`;
  }

  /** Sends one command (maybe twice at once, maybe again later, maybe reusing its id for other content). */
  private send(operation: MarketOperation, actor: string, targetId: string, body: Record<string, unknown>, label: string, onReply?: (reply: ShardReply) => void): void {
    const commandId = this.commandId(actor);
    const command = buildMarketCommand(operation, actor, targetId, { commandId, principalId: actor, ...body });
    const intent = this.clients.intent(command, label, onReply);
    this.dispatch(intent);
    this.used.push(intent);
  }

  /** Sends `intent` until answered; maybe to two nodes at once, maybe again after its answer. */
  private dispatch(intent: Intent): void {
    this.clients.submit(intent, () => {
      if (this.random.chance(this.plan.resendRate)) {
        this.later(this.random.int(0, 2_000), () => this.clients.resend(intent, this.random.pick(this.nodes)));
      }
    });
    if (this.random.chance(this.plan.twinRate)) this.clients.resend(intent, this.random.pick(this.nodes));
  }

  private create(market: MarketPlan): void {
    const mechanism: MechanismSelectionInput =
      market.mechanism === "auction"
        ? {
            presetId: "sealed-forward-auction.v1",
            config: { currency: "EUR", closesAt: new Date(this.epochMs + this.scheduler.nowMs + market.closesAfterMs).toISOString(), holdDurationSeconds: market.holdSeconds },
          }
        : {
            presetId: "direct-claim.v1",
            config:
              market.confirmation === "none"
                ? { capacity: market.capacity, pricing: { mode: "free" }, confirmation: "none" }
                : { capacity: market.capacity, pricing: { mode: "free" }, confirmation: market.confirmation, holdDurationSeconds: market.holdSeconds },
          };
    this.send("market.create_draft", market.creator, market.id, { marketId: market.id, subject: SUBJECT, mechanism }, `create ${market.id}`, (reply) => {
      if (reply.ok) this.send("market.publish", market.creator, market.id, { expectedVersion: 1 }, `publish ${market.id}`, (published) => {
        if (published.ok) this.opened(market);
      });
    });
  }

  /** The market is open: its participants act on it until the workload ends. */
  private opened(market: MarketPlan): void {
    const markets = this.plan.markets;
    for (const participant of this.plan.participants) {
      for (let i = 0; i < this.plan.actionsPerParticipant; i++) {
        // Hot: most actions go to the first market; each market's opening schedules its own share.
        const share = this.plan.hot ? (market === markets[0] ? 0.8 : 0.2 / Math.max(1, markets.length - 1)) : 1 / markets.length;
        if (!this.random.chance(Math.min(1, share * markets.length))) continue;
        const atMs = this.random.int(this.scheduler.nowMs, Math.max(this.scheduler.nowMs, this.plan.activeMs));
        this.at(atMs, () => this.act(market, participant));
      }
    }
  }

  private act(market: MarketPlan, participant: string): void {
    if (this.random.chance(this.plan.reuseRate) && this.used.length > 0) {
      this.reuse(this.random.pick(this.used));
      return;
    }
    if (market.mechanism === "auction") {
      this.send("sealed_auction.submit_bid", participant, market.id, { amountMinor: this.random.int(1, 1_000), currency: "EUR" }, `bid on ${market.id} by ${participant}`);
      return;
    }
    this.send("direct_claim.submit", participant, market.id, {}, `claim ${market.id} by ${participant}`, (reply) => this.claimed(market, participant, reply));
  }

  /** A hold awaiting confirmation: its principals confirm (or decline) it, or let it expire. */
  private claimed(market: MarketPlan, participant: string, reply: ShardReply): void {
    if (!reply.ok) return;
    const result = JSON.parse(jsonText(reply.json)) as MarketActionResult;
    for (const commitment of result.commitments) {
      if (commitment.state !== "awaiting_confirmations") continue;
      for (const principal of this.confirmers(commitment, market, participant)) {
        if (!this.random.chance(this.plan.confirmRate)) continue;
        const operation: MarketOperation = this.random.chance(0.8) ? "commitment.confirm" : "commitment.decline";
        this.later(this.random.int(0, market.holdSeconds * 1_500), () =>
          this.send(operation, principal, commitment.id, {}, `${operation === "commitment.confirm" ? "confirm" : "decline"} ${commitment.id} by ${principal}`),
        );
      }
    }
  }

  private confirmers(commitment: Commitment, market: MarketPlan, participant: string): string[] {
    return commitment.requiredConfirmationPrincipalIds ?? (market.confirmation === "creator" ? [market.creator] : [participant]);
  }

  /** The commandId of an earlier command, used again for other content (a claim on another market). */
  private reuse(earlier: Intent): void {
    const market = this.random.pick(this.plan.markets);
    const command = buildMarketCommand("direct_claim.submit", earlier.actorId, market.id, { commandId: earlier.commandId, principalId: earlier.actorId });
    const intent = this.clients.intent(command, `claim ${market.id} by ${earlier.actorId}, reusing ${earlier.commandId}`);
    this.clients.submit(intent);
  }
}
