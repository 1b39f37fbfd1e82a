import { IndexedHeap, type HeapItem } from '../collections/indexed-heap.js';

/**
 * Whose turn it is among factories with queued creations: start-time fair queueing with
 * weights from the ApportionPolicy (see apportion-policy.ts for the rule and its source).
 * Waiting factories sit in a heap by start tag, so choosing the next one is O(log F).
 */
export interface FactoryTurn extends HeapItem {
  readonly factory: string;
  startTag: number;
  finishTag: number;
  /** Key of the factory's oldest request, so equal tags go to the older request. */
  headPriority: number;
  headArrival: number;
}

/** Strict total order on turns: arrivals are unique, so two factories never tie. */
export const turnBefore = (a: FactoryTurn, b: FactoryTurn): boolean =>
  a.startTag < b.startTag ||
  (a.startTag === b.startTag &&
    (a.headPriority < b.headPriority || (a.headPriority === b.headPriority && a.headArrival < b.headArrival)));

export class FactoryTurns<Turn extends FactoryTurn> {
  private virtualTime = 0;
  private readonly waiting = new IndexedHeap<Turn>(turnBefore);

  /** Factories with queued work. */
  get size(): number {
    return this.waiting.size;
  }

  isWaiting(turn: Turn): boolean {
    return this.waiting.has(turn);
  }

  /** The factory has work after an idle spell: it starts now, with no credit for idling. */
  join(turn: Turn): void {
    turn.startTag = Math.max(this.virtualTime, turn.finishTag);
    this.waiting.push(turn);
  }

  /** The factory has no work left (its last request was removed). */
  leave(turn: Turn): void {
    if (this.waiting.has(turn)) this.waiting.remove(turn);
  }

  /** The factory's oldest request changed (a re-queue went ahead of it, or it was removed). */
  headChanged(turn: Turn): void {
    if (this.waiting.has(turn)) this.waiting.update(turn);
  }

  /** One request of the factory was served, at its current `weight`. */
  served(turn: Turn, weight: number, hasMoreWork: boolean): void {
    this.virtualTime = turn.startTag;
    turn.finishTag = turn.startTag + 1 / weight;
    if (!hasMoreWork) {
      this.leave(turn);
      return;
    }
    turn.startTag = turn.finishTag;
    this.waiting.update(turn);
  }

  /**
   * The waiting factory with the smallest tag among those with capacity. Factories without
   * capacity are passed over in tag order: O((k + 1) log F) for k passed over — in the worst
   * case every waiting factory, which is why callers that know where the capacity is (a
   * server's factories) should pick among those instead (`best`).
   */
  next(hasCapacity: (factory: string) => boolean): Turn | undefined {
    const top = this.waiting.peek();
    if (top === undefined || hasCapacity(top.factory)) return top;
    const passedOver: Turn[] = [];
    let found: Turn | undefined;
    for (let t = this.waiting.pop(); t !== undefined; t = this.waiting.pop()) {
      if (hasCapacity(t.factory)) {
        found = t;
        this.waiting.push(t);
        break;
      }
      passedOver.push(t);
    }
    for (const t of passedOver) this.waiting.push(t);
    return found;
  }

  /** The first in turn order among the given waiting factories that has capacity: O(candidates). */
  best(candidates: Iterable<Turn>, hasCapacity: (factory: string) => boolean): Turn | undefined {
    let best: Turn | undefined;
    for (const t of candidates) {
      if (!this.waiting.has(t) || (best !== undefined && !turnBefore(t, best))) continue;
      if (hasCapacity(t.factory)) best = t;
    }
    return best;
  }
}
