/**
 * What `decide` returns: the events an accepted command emits, or a rejection with its code.
 * Rejections are decisions, not exceptions: they are recorded like accepted commands.
 */
import type { BidSubmittedEvent, ErrorCode, Event, Rejection } from "@market-service/client/wire";

/** The private half of an accepted sealed bid; travels only inside the engine and the log. */
export interface SealedBidAmount {
  amountMinor: number;
  currency: string;
}

/** `sealed_auction.bid_submitted` as the engine sees it: the public event plus the private amount. */
export type BidSubmittedDomainEvent = BidSubmittedEvent & { sealedBid?: SealedBidAmount };

/** Events as decided: public events, except that a bid event also carries its private amount. */
export type DomainEvent = Exclude<Event, BidSubmittedEvent> | BidSubmittedDomainEvent;

export interface Accepted {
  accepted: true;
  events: DomainEvent[];
}

export interface Rejected {
  accepted: false;
  rejection: Rejection;
}

export type Decision = Accepted | Rejected;

export function accept(events: DomainEvent[]): Accepted {
  return { accepted: true, events };
}

export function reject(code: ErrorCode, message: string): Rejected {
  return { accepted: false, rejection: { code, message } };
}

/** The public form of an event: strips the private bid amount. Every outward path goes through here. */
export function publicEvent(event: DomainEvent): Event {
  if (event.type === "sealed_auction.bid_submitted" && "sealedBid" in event) {
    const { sealedBid: _private, ...rest } = event;
    return rest;
  }
  return event;
}
