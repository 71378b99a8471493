/**
 * Where a seed's checks report what they found: the first violation ends the seed (it is what a
 * replay of the seed must reproduce, with the trace that led to it).
 */
export class Violations {
  first: string | undefined;

  constructor(private readonly onFirst: (message: string) => void) {}

  report(message: string): void {
    if (this.first !== undefined) return;
    this.first = message;
    this.onFirst(message);
  }

  get found(): boolean {
    return this.first !== undefined;
  }
}
