/**
 * What the live page shows of one market, folded from `GET /v1/markets/{id}` and the market's event
 * stream. Pure: no DOM, no clock, no network, so it is tested without a browser
 * (test/ui/market-view.test.ts) and the page only renders it.
 *
 * Everything read from the service is checked member by member: a non-creator sees a public view
 * of each event with fewer `data` members (docs/events.md), so nothing here relies on an identity or
 * any optional member being present.
 */

/** One event as the stream delivers it (spec §6.1; `data` depends on the type and the viewer). */
export interface MarketEvent {
  sequence: number;
  id: string;
  type: string;
  marketId: string;
  marketVersion: number;
  occurredAt: string;
  /** The principal the command acted for; absent from views that do not show identities. */
  principalId?: string;
  data: Readonly<Record<string, unknown>>;
}

export type MechanismKind = "direct-claim" | "auction" | "other";

export interface CommitmentRow {
  id: string;
  /** The commitment's latest state, as the events show it (spec §3.2). */
  state: string;
  /** The event time of that state. */
  updatedAt: string;
  /** The claimant, when this viewer's view of the claim names one. */
  claimant?: string;
}

export interface AuctionResult {
  outcome: string;
  winningBidId?: string;
  winnerPrincipalId?: string;
  clearingPrice?: { amountMinor: number; currency: string };
}

/** Whether an applied event changed something the event itself does not carry (see `applyEvent`). */
export type EventEffect = "applied" | "refetch-market";

/** Most commitments kept for display; the count covers all of them. */
export const MAX_COMMITMENT_ROWS = 200;

export class MarketView {
  marketId = "";
  state = "";
  version = 0;
  kind: MechanismKind = "other";
  capacity: number | undefined;
  allocated: number | undefined;
  /** The market version `allocated` was read at: an older event never overwrites a newer value. */
  private allocatedVersion = 0;
  closesAt: string | undefined;
  currency: string | undefined;
  bidCount: number | undefined;
  result: AuctionResult | undefined;
  /** Highest sequence applied: the stream resumes after it. */
  lastSequence = 0;
  eventCount = 0;
  commitmentCount = 0;
  /** Newest last; at most MAX_COMMITMENT_ROWS. */
  private readonly commitments = new Map<string, CommitmentRow>();
  /**
   * The winner a resolution just named: the commitment event that follows it in the same command
   * is the winner's (its own data names no participant; its envelope names the service, which
   * resolved the auction).
   */
  private resolvedWinner: { principalId: string; marketVersion: number } | undefined;

  /** Applies a market snapshot (`GET /v1/markets/{id}`). Throws on a body that is not a market. */
  applyMarket(body: unknown): void {
    const market = asRecord(body, "market");
    const id = stringMember(market, "id");
    const version = integerMember(market, "version");
    if (id === undefined || version === undefined) throw new Error("the reply is not a market (no id or version)");
    if (this.marketId !== "" && id !== this.marketId) throw new Error(`the reply is market ${id}, not ${this.marketId}`);
    this.marketId = id;
    // A snapshot older than what the events already showed changes nothing.
    if (version < this.version) return;
    this.version = version;
    this.state = stringMember(market, "state") ?? this.state;
    const mechanism = recordMember(market, "mechanism");
    const config = mechanism === undefined ? undefined : recordMember(mechanism, "config");
    const presetId = mechanism === undefined ? undefined : stringMember(mechanism, "presetId");
    this.kind = presetId === "direct-claim.v1" ? "direct-claim" : presetId === "sealed-forward-auction.v1" ? "auction" : "other";
    const mechanismState = recordMember(market, "mechanismState");
    if (this.kind === "direct-claim" && config !== undefined) {
      this.capacity = integerMember(config, "capacity") ?? this.capacity;
      const allocated = mechanismState === undefined ? undefined : integerMember(mechanismState, "allocated");
      if (allocated !== undefined && version >= this.allocatedVersion) {
        this.allocated = allocated;
        this.allocatedVersion = version;
      }
    }
    if (this.kind === "auction" && config !== undefined) {
      this.closesAt = stringMember(config, "closesAt");
      this.currency = stringMember(config, "currency");
      if (mechanismState !== undefined) {
        this.bidCount = integerMember(mechanismState, "bidCount") ?? this.bidCount;
        const resolution = stringMember(mechanismState, "resolution");
        if (resolution !== undefined && this.result === undefined) {
          const winningBidId = stringMember(mechanismState, "winningBidId");
          this.result = { outcome: resolution, ...(winningBidId === undefined ? {} : { winningBidId }) };
        }
      }
    }
  }

  /**
   * Applies one event of the stream. Returns "refetch-market" when the event changed the market in
   * a way its data does not say (a publish, a resolution, the last capacity taken, which may close
   * the market, a commitment released by a decline or an expiry, which frees capacity): the page
   * then reads the market again.
   */
  applyEvent(event: MarketEvent): EventEffect {
    if (event.sequence <= this.lastSequence) return "applied"; // a repeat after a resume: already shown
    this.lastSequence = event.sequence;
    this.eventCount += 1;
    if (event.marketVersion > this.version) this.version = event.marketVersion;
    const data = event.data;
    switch (event.type) {
      case "market.published":
        this.state = stringMember(data, "state") ?? "open";
        return "refetch-market";
      case "direct_claim.accepted": {
        const allocated = integerMember(data, "allocated");
        if (allocated !== undefined && event.marketVersion >= this.allocatedVersion) {
          this.allocated = allocated;
          this.allocatedVersion = event.marketVersion;
        }
        this.capacity = integerMember(data, "capacity") ?? this.capacity;
        const commitmentId = stringMember(data, "commitmentId");
        if (commitmentId !== undefined) this.noteCommitment(commitmentId, undefined, event, event.principalId);
        // The claim that takes the last capacity may close the market, which no event says.
        return allocated !== undefined && this.capacity !== undefined && allocated >= this.capacity ? "refetch-market" : "applied";
      }
      case "sealed_auction.bid_submitted":
        this.bidCount = integerMember(data, "bidCount") ?? this.bidCount;
        return "applied";
      case "sealed_auction.resolved": {
        this.result = auctionResultOf(data);
        const winner = this.result.winnerPrincipalId;
        this.resolvedWinner = winner === undefined ? undefined : { principalId: winner, marketVersion: event.marketVersion };
        return "refetch-market";
      }
      default:
        if (event.type.startsWith("commitment.")) {
          const commitmentId = stringMember(data, "commitmentId");
          const winner = this.resolvedWinner?.marketVersion === event.marketVersion ? this.resolvedWinner.principalId : undefined;
          if (commitmentId !== undefined) this.noteCommitment(commitmentId, stringMember(data, "state"), event, winner);
          return event.type === "commitment.declined" || event.type === "commitment.expired" ? "refetch-market" : "applied";
        }
        return "applied";
    }
  }

  /** The commitments seen, newest first. */
  commitmentRows(): CommitmentRow[] {
    return [...this.commitments.values()].reverse();
  }

  private noteCommitment(id: string, state: string | undefined, event: MarketEvent, claimant: string | undefined): void {
    const previous = this.commitments.get(id);
    if (previous === undefined) this.commitmentCount += 1;
    const row: CommitmentRow = {
      id,
      state: state ?? previous?.state ?? "provisional",
      updatedAt: event.occurredAt,
      ...(claimant !== undefined ? { claimant } : previous?.claimant !== undefined ? { claimant: previous.claimant } : {}),
    };
    this.commitments.delete(id); // re-inserted last: the newest change shows first
    this.commitments.set(id, row);
    if (this.commitments.size > MAX_COMMITMENT_ROWS) {
      const oldest = this.commitments.keys().next();
      if (oldest.done !== true) this.commitments.delete(oldest.value);
    }
  }
}

/** Checks the shape of one stream event (the data line's JSON). Throws naming what is wrong. */
export function parseMarketEvent(json: unknown): MarketEvent {
  const event = asRecord(json, "event");
  const sequence = integerMember(event, "sequence");
  const id = stringMember(event, "id");
  const type = stringMember(event, "type");
  const marketId = stringMember(event, "marketId");
  const marketVersion = integerMember(event, "marketVersion");
  const occurredAt = stringMember(event, "occurredAt");
  const data = recordMember(event, "data") ?? {};
  const principalId = stringMember(event, "principalId");
  if (sequence === undefined || sequence < 1) throw new Error("event without a sequence");
  if (id === undefined || type === undefined || marketId === undefined || marketVersion === undefined || occurredAt === undefined) {
    throw new Error(`event ${sequence} lacks id, type, marketId, marketVersion or occurredAt`);
  }
  return { sequence, id, type, marketId, marketVersion, occurredAt, ...(principalId === undefined ? {} : { principalId }), data };
}

function auctionResultOf(data: Readonly<Record<string, unknown>>): AuctionResult {
  const outcome = stringMember(data, "outcome") ?? "resolved";
  const winningBidId = stringMember(data, "winningBidId");
  const winnerPrincipalId = stringMember(data, "winnerPrincipalId");
  const price = recordMember(data, "clearingPrice");
  const amountMinor = price === undefined ? undefined : integerMember(price, "amountMinor");
  const currency = price === undefined ? undefined : stringMember(price, "currency");
  return {
    outcome,
    ...(winningBidId === undefined ? {} : { winningBidId }),
    ...(winnerPrincipalId === undefined ? {} : { winnerPrincipalId }),
    ...(amountMinor === undefined || currency === undefined ? {} : { clearingPrice: { amountMinor, currency } }),
  };
}

function asRecord(value: unknown, what: string): Readonly<Record<string, unknown>> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Error(`the ${what} is not a JSON object`);
  return value as Record<string, unknown>;
}

function recordMember(object: Readonly<Record<string, unknown>>, name: string): Readonly<Record<string, unknown>> | undefined {
  const value = object[name];
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function stringMember(object: Readonly<Record<string, unknown>>, name: string): string | undefined {
  const value = object[name];
  return typeof value === "string" ? value : undefined;
}

function integerMember(object: Readonly<Record<string, unknown>>, name: string): number | undefined {
  const value = object[name];
  return typeof value === "number" && Number.isSafeInteger(value) ? value : undefined;
}
