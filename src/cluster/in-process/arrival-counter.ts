import type { ArrivalSequence } from '../ports.js';

/** The arrival sequence of a single coordinator: a number in memory. */
export class ArrivalCounter implements ArrivalSequence {
  private last = 0;

  next(): number {
    return ++this.last;
  }

  observe(arrival: number): void {
    if (arrival > this.last) this.last = arrival;
  }
}
