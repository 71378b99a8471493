/**
 * Event-loop turns as the HTTP layer needs them.
 *
 * uWS parses everything one read brought (possibly several pipelined requests) inside one native
 * callback, with the socket corked: replies given during that parse, including those written from
 * promise continuations (Node drains microtasks after every call into JS), sit in the cork buffer
 * until the read is fully parsed. `setImmediate` runs after the poll phase that delivered the read,
 * before the next one: the first point where everything written during that parse has either left
 * for the socket or been dropped with it. `id` names the turn; it moves on at that point.
 */
export class LoopTurn {
  /** The current turn; increases by one each time a turn with HTTP activity ends. */
  id = 0;
  private scheduled = false;
  private tasks: (() => void)[] = [];

  constructor(private readonly onTaskError: (error: unknown) => void) {}

  /** Records activity in this turn, so that the turn ends (and `id` moves on) after it. */
  touch(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.end);
  }

  /** Runs `task` once at the end of the current turn. */
  atEnd(task: () => void): void {
    this.tasks.push(task);
    this.touch();
  }

  private readonly end = (): void => {
    this.scheduled = false;
    this.id += 1;
    const tasks = this.tasks;
    if (tasks.length === 0) return;
    this.tasks = [];
    for (const task of tasks) {
      try {
        task();
      } catch (error) {
        this.onTaskError(error);
      }
    }
  };
}
