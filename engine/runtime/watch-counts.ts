/**
 * How many watches each market's live events have at its shard (docs/events.md). A shard keeps a
 * market watched or not; several parties may watch it (a node's event hub, and in cluster mode the
 * hubs of other nodes through the owner), each ending its watch once. The shard is told to stop only
 * when the last one ends; an end without a watch (one made at a previous owner) changes nothing.
 */
export class WatchCounts {
  private readonly counts = new Map<string, number>();

  /** A watch of `marketId` was answered. */
  added(marketId: string): void {
    this.counts.set(marketId, (this.counts.get(marketId) ?? 0) + 1);
  }

  /** A watch ended; true when it was the last one (the shard should stop emitting the market's events). */
  removed(marketId: string): boolean {
    const count = this.counts.get(marketId) ?? 0;
    if (count === 0) return false;
    if (count === 1) {
      this.counts.delete(marketId);
      return true;
    }
    this.counts.set(marketId, count - 1);
    return false;
  }

  /** The watches of the markets `which` selects are gone (their shard closed: a new one watches nothing). */
  forget(which: (marketId: string) => boolean): void {
    for (const marketId of [...this.counts.keys()]) if (which(marketId)) this.counts.delete(marketId);
  }
}
