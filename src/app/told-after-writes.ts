import type { Effect } from '../coordinator/effects.js';

/**
 * What a ticket's client is told: only once the store's writes before it are committed. Orders to
 * game servers are not held: one sent before its ticket's record lands promised the client nothing
 * yet, and a kill -9 then costs at most a game created for seats that lapse (held, they cost the
 * embedded node ~12% more CPU a ticket: creations went out a commit later, with fewer riders).
 */
export const TOLD = new Set<Effect['kind']>(['update', 'fail']);

/**
 * What a cluster shard's owner holds: orders to game servers too. A new owner rebuilds the shard
 * from what its predecessor committed, so an order it never committed (a creation, seats reserved)
 * would be a game or a seat nobody restores, and its players would be placed a second time.
 */
export const TOLD_OR_ORDERED = new Set<Effect['kind']>(['update', 'fail', 'order']);

/**
 * Holds what a step tells clients until the ticket writes made before it are committed, in the
 * order the core made it. LMDB commits a batch in the background some milliseconds after the step:
 * a client told `queued` in between, and the process killed -9, came back to a coordinator with
 * no record of its place (20 of 10,000 waiting tickets in one run from outside). Writes are not
 * held, only their telling; a commit that fails still releases what waits on it (the store reports
 * the failure, and the ticket lives on in memory).
 */
export class ToldAfterWrites {
  /** Each commit in flight with what waits on it; the first is being waited on. */
  private readonly held: { readonly commit: PromiseLike<unknown>; readonly effects: Effect[] }[] = [];

  constructor(
    /** The store's commit in flight, undefined when none is. */
    private readonly inFlight: () => PromiseLike<unknown> | undefined,
    private readonly tell: (effect: Effect) => void,
    /**
     * A commit that fails drops what waits on it (a fenced cluster owner: its term is over and the
     * next owner tells from what was committed); otherwise it is told anyway (LMDB: the ticket
     * lives on in memory, and only its restart recovery was lost).
     */
    private readonly dropOnFailure = false,
  ) {}

  /** Tells now when nothing is in flight or held, else after the commit in flight and whatever waits before it. */
  tellOrHold(effect: Effect): void {
    const commit = this.inFlight();
    const last = this.held[this.held.length - 1];
    if (last === undefined) {
      if (commit === undefined) return this.tell(effect);
      this.held.push({ commit, effects: [effect] });
      this.waitFor(commit);
    } else if (commit === undefined || commit === last.commit) {
      last.effects.push(effect);
    } else {
      this.held.push({ commit, effects: [effect] });
    }
  }

  /** Effects waiting for a commit now. */
  get waiting(): number {
    let n = 0;
    for (const group of this.held) n += group.effects.length;
    return n;
  }

  private waitFor(commit: PromiseLike<unknown>): void {
    commit.then(
      () => this.release(true),
      () => this.release(!this.dropOnFailure),
    );
  }

  private release(tell: boolean): void {
    // The group stays first while it is told: what a listener causes meanwhile (a reentrant
    // input) queues behind it, after the rest of the group, never before.
    const group = this.held[0]!;
    for (let i = 0; tell && i < group.effects.length; i++) this.tell(group.effects[i]!);
    this.held.shift();
    const next = this.held[0];
    if (next) this.waitFor(next.commit);
  }
}
