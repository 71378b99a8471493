/**
 * A hashed timer wheel for auction closes and hold expiries. Deadlines go into slot
 * `floor(atMs / tickMs) mod slotCount`; advancing the wheel scans only the slots of the ticks that
 * passed (at most one full turn), so scheduling and firing are O(1) per timer however many markets
 * wait. Deadlines further than one turn ahead simply stay in their slot until their turn comes.
 *
 * Time is whatever the caller passes in (`takeDue(nowMs)`): tests drive it by hand, never by sleeping.
 * Due items come out in deadline order (ties in scheduling order), so deadlines missed while the
 * service was down fire at once, oldest first.
 */

interface Timer<T> {
  atMs: number;
  seq: number;
  item: T;
}

export class TimerWheel<T> {
  private readonly slots: Timer<T>[][];
  /** Timers whose tick had already been scanned when they were scheduled. */
  private overdue: Timer<T>[] = [];
  /** Every tick ≤ this has been scanned; the current tick is always rescanned. */
  private scannedThroughTick = Number.NEGATIVE_INFINITY;
  private seq = 0;
  private count = 0;

  constructor(
    private readonly tickMs = 100,
    private readonly slotCount = 4096,
  ) {
    if (!Number.isInteger(tickMs) || tickMs < 1) throw new Error("tickMs must be a positive integer");
    if (!Number.isInteger(slotCount) || slotCount < 1) throw new Error("slotCount must be a positive integer");
    this.slots = Array.from({ length: slotCount }, () => []);
  }

  get size(): number {
    return this.count;
  }

  schedule(atMs: number, item: T): void {
    if (!Number.isFinite(atMs)) throw new Error("a deadline must be a finite time");
    const timer: Timer<T> = { atMs, seq: this.seq++, item };
    const tick = Math.floor(atMs / this.tickMs);
    if (tick <= this.scannedThroughTick) this.overdue.push(timer);
    else this.slotFor(tick).push(timer);
    this.count += 1;
  }

  /** Remove and return every item due at `nowMs` (atMs ≤ nowMs), in deadline order. */
  takeDue(nowMs: number): T[] {
    const due = this.overdue.filter((timer) => timer.atMs <= nowMs);
    this.overdue = this.overdue.filter((timer) => timer.atMs > nowMs);
    const nowTick = Math.floor(nowMs / this.tickMs);
    const ticksToScan = nowTick - this.scannedThroughTick;
    if (ticksToScan >= this.slotCount) {
      for (const slot of this.slots) this.drain(slot, nowMs, due);
    } else {
      for (let tick = this.scannedThroughTick + 1; tick <= nowTick; tick += 1) this.drain(this.slotFor(tick), nowMs, due);
    }
    // Timers later in the current tick are still in its slot: rescan it next time.
    this.scannedThroughTick = Math.max(this.scannedThroughTick, nowTick - 1);
    this.count -= due.length;
    due.sort((a, b) => a.atMs - b.atMs || a.seq - b.seq);
    return due.map((timer) => timer.item);
  }

  private slotFor(tick: number): Timer<T>[] {
    const index = ((tick % this.slotCount) + this.slotCount) % this.slotCount;
    const slot = this.slots[index];
    if (slot === undefined) throw new Error("slot index out of range");
    return slot;
  }

  private drain(slot: Timer<T>[], nowMs: number, into: Timer<T>[]): void {
    let kept = 0;
    for (const timer of slot) {
      if (timer.atMs <= nowMs) into.push(timer);
      else slot[kept++] = timer;
    }
    slot.length = kept;
  }
}
