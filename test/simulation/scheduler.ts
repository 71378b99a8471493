/**
 * The discrete-event scheduler: simulated time, and one queue of everything that will happen (a
 * message delivered, a timer firing, a fault), run one event at a time in time order. Events at the
 * same millisecond run in an order drawn from the seed, so a seed explores one interleaving and
 * replays it exactly. After each event every promise continuation it caused runs (the microtask
 * queue drains) before the next event, as after one turn of a real event loop.
 *
 * Every event belongs to an actor (a node's process, a client, the NATS servers). A dead actor's
 * events never run (a crash loses them); a paused actor's are held and run, in their order, when
 * it resumes (SIGSTOP: its timers are late and its sockets deliver what queued meanwhile).
 */
import type { Random } from "./random.js";

/**
 * The end of an event's turn: resolved from Node's tick queue, which runs only once the microtask
 * queue is empty, so every promise continuation the event caused has run (cheaper than a whole
 * loop turn through setImmediate; the traces are the same). A continuation scheduled through
 * process.nextTick by a simulated module would run after this one: none uses it (the cluster's code
 * takes its timing from Timers.soon). Taken before anything could replace it.
 */
const realNextTick = process.nextTick.bind(process);
const nextTurn = (): Promise<void> => new Promise((resolve) => realNextTick(resolve));

/** Events at one simulated millisecond beyond which the world is taken to be spinning in place. */
const MAX_EVENTS_AT_ONE_INSTANT = 100_000;

export class Actor {
  state: "running" | "paused" | "dead" = "running";
  /** Events that came due while paused, in order. */
  readonly held: ScheduledEvent[] = [];
  constructor(readonly name: string) {}
}

interface ScheduledEvent {
  readonly at: number;
  readonly tie: number;
  readonly seq: number;
  readonly actor: Actor;
  readonly run: () => void;
  cancelled: boolean;
}

export interface SimTimer {
  cancel(): void;
}

function before(a: ScheduledEvent, b: ScheduledEvent): boolean {
  return a.at !== b.at ? a.at < b.at : a.tie !== b.tie ? a.tie < b.tie : a.seq < b.seq;
}

export class Scheduler {
  nowMs = 0;
  /** Events run so far (a measure of a seed's size). */
  eventsRun = 0;
  private readonly heap: ScheduledEvent[] = [];
  /** Events run at the current instant: past a bound, time is not advancing (a livelock). */
  private sameInstant = 0;
  private seq = 0;
  /** What a run threw, to be reported as the seed's failure. */
  failure: Error | undefined;

  constructor(private readonly random: Random) {}

  /** Runs `run` at `atMs` (not before now) as `actor`; `tie` orders it among events of that millisecond (random by default). */
  at(atMs: number, actor: Actor, run: () => void, tie: number = this.random.u32()): SimTimer {
    const event: ScheduledEvent = { at: Math.max(Math.ceil(atMs), this.nowMs), tie, seq: this.seq++, actor, run, cancelled: false };
    this.push(event);
    return { cancel: () => (event.cancelled = true) };
  }

  after(delayMs: number, actor: Actor, run: () => void): SimTimer {
    return this.at(this.nowMs + Math.max(0, delayMs), actor, run);
  }

  /** A random tie for an event; lanes (lane.ts) reuse one to keep their order. */
  tie(): number {
    return this.random.u32();
  }

  pause(actor: Actor): void {
    if (actor.state === "running") actor.state = "paused";
  }

  /** The paused actor runs again: what came due meanwhile runs now, in its order. */
  resume(actor: Actor): void {
    if (actor.state !== "paused") return;
    actor.state = "running";
    const held = actor.held.splice(0);
    const tie = this.random.u32();
    for (const event of held) this.push({ ...event, at: this.nowMs, tie, seq: this.seq++ });
  }

  kill(actor: Actor): void {
    actor.state = "dead";
    actor.held.length = 0;
  }

  /**
   * Runs events in order until none is due by `untilMs` or `stop` says so (checked after each
   * event); time then stands at `untilMs` (or at the last event, if stopped).
   */
  async run(untilMs: number, stop?: () => boolean): Promise<void> {
    while (this.heap.length > 0 && this.failure === undefined) {
      const next = this.heap[0] as ScheduledEvent;
      if (next.at > untilMs) break;
      this.pop();
      if (next.cancelled || next.actor.state === "dead") continue;
      if (next.actor.state === "paused") {
        next.actor.held.push(next);
        continue;
      }
      if (next.at === this.nowMs) {
        this.sameInstant += 1;
        if (this.sameInstant > MAX_EVENTS_AT_ONE_INSTANT) {
          this.failure = new Error(`livelock: more than ${MAX_EVENTS_AT_ONE_INSTANT} events at ${this.nowMs} ms (the last of ${next.actor.name}: ${next.run.toString().slice(0, 200)})`);
          return;
        }
      } else {
        this.sameInstant = 0;
      }
      this.nowMs = next.at;
      this.eventsRun += 1;
      try {
        next.run();
      } catch (error) {
        this.failure = new Error(`an event of ${next.actor.name} threw: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      }
      await nextTurn();
      if (stop?.() === true) return;
    }
    if (this.failure === undefined) this.nowMs = Math.max(this.nowMs, untilMs);
  }

  private push(event: ScheduledEvent): void {
    const heap = this.heap;
    heap.push(event);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(event, heap[parent] as ScheduledEvent)) break;
      heap[i] = heap[parent] as ScheduledEvent;
      i = parent;
    }
    heap[i] = event;
  }

  private pop(): void {
    const heap = this.heap;
    const last = heap.pop() as ScheduledEvent;
    if (heap.length === 0) return;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= heap.length) break;
      const right = left + 1;
      const child = right < heap.length && before(heap[right] as ScheduledEvent, heap[left] as ScheduledEvent) ? right : left;
      if (!before(heap[child] as ScheduledEvent, last)) break;
      heap[i] = heap[child] as ScheduledEvent;
      i = child;
    }
    heap[i] = last;
  }
}

/**
 * A FIFO channel (a TCP connection, a thread's message port, an ordered consumer): each message
 * arrives after a delay, never before one sent earlier on the same lane.
 */
export class Lane {
  private lastAt = 0;
  private lastTie = 0;

  constructor(private readonly scheduler: Scheduler) {}

  send(delayMs: number, actor: Actor, run: () => void): SimTimer {
    const at = Math.max(this.scheduler.nowMs + Math.max(0, Math.ceil(delayMs)), this.lastAt);
    // Same millisecond as the message before: the same tie, so the sequence number keeps their order.
    if (at !== this.lastAt) this.lastTie = this.scheduler.tie();
    this.lastAt = at;
    return this.scheduler.at(at, actor, run, this.lastTie);
  }
}
