import type { QueuedTicket, SimMatch, SimulatedQueue } from './simulated-queue.js';

/** Pairs whoever has waited longest, with no regard to skill: the floor for wait (1v1). */
export class RandomPairingQueue implements SimulatedQueue {
  readonly name = 'random pairing';
  private queue: QueuedTicket[] = [];
  arrive(ticket: QueuedTicket): void {
    this.queue.push(ticket);
  }
  check(): SimMatch[] {
    const matches: SimMatch[] = [];
    for (let i = 0; i + 1 < this.queue.length; i += 2) {
      matches.push({ teams: [[this.queue[i]!.id], [this.queue[i + 1]!.id]] });
    }
    this.queue = this.queue.length % 2 === 1 ? this.queue.slice(-1) : [];
    return matches;
  }
  get waiting(): number {
    return this.queue.length;
  }
}
