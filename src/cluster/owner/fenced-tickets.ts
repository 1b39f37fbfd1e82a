import type { TicketRecord, TicketStore } from '../../coordinator/ports.js';
import { StaleTerm, StoreUnreachable, type KeptAssignment, type ShardStore, type ShardWrites, type Term } from '../store/shard-store.js';

interface Batch {
  readonly save: TicketRecord[];
  readonly remove: string[];
  readonly keep: KeptAssignment[];
  readonly committed: Promise<void>;
  resolve(): void;
  reject(error: unknown): void;
}

export interface FencedTicketsOptions {
  readonly store: ShardStore;
  readonly term: Term;
  /** The lease was found free under this term: take it again (undefined: another node holds it now). */
  readonly retake: (term: Term) => Promise<Term | undefined>;
  /** Claims made again after a Redis restart lost them. */
  readonly claimTtlMs: number;
  /** Whether this owner may still act (its keeper still holds the term): while it may, a commit Redis did not answer is tried again. */
  readonly holding: () => boolean;
  /** False only for the simulator's planted bug: a new term after a loss is not given what this owner holds. */
  readonly writeBack?: boolean;
  /** Waits before trying again. */
  readonly pause: (ms: number) => Promise<void>;
  /** A commit failed for good: the core is ahead of the store and must stop (its successor rebuilds from what landed). */
  readonly failed: (error: unknown) => void;
}


/** How long a commit Redis did not answer waits before it is tried again. */
const RETRY_MS = 100;

/**
 * A shard owner's TicketStore: the writes of one step of its core go to the cluster's store as one
 * fenced commit, made when the step ends (`flush`), after every commit before it. While a step runs,
 * `inFlight` is its commit, so what the step tells clients and orders servers waits for it
 * (CoreHost, fenced), and a refused commit tells and orders nothing.
 *
 * It also keeps what it has committed (the shard's durable tickets and kept assignments), because
 * Redis may lose it: when the lease is found free under this owner's term (a Redis restarted
 * without persistence, or a lease that lapsed unseen) and this node takes it again, everything is
 * written back under the new term, and the players claimed again, before the next step's writes.
 */
export class FencedTickets implements TicketStore {
  private open: Batch | undefined;
  private last: Promise<void> | undefined;
  private term: Term;
  /** A new term of this owner's whose store has not been given what this owner holds yet. */
  private unwritten = false;
  private readonly durable = new Map<string, TicketRecord>();
  private readonly kept = new Map<string, KeptAssignment>();

  constructor(private readonly options: FencedTicketsOptions) {
    this.term = options.term;
  }

  /** What was restored: it is this owner's to write back after a loss, too. */
  restored(records: readonly TicketRecord[], kept: readonly KeptAssignment[]): void {
    for (const record of records) this.durable.set(record.request.ticketId, record);
    for (const k of kept) this.kept.set(k.ticketId, k);
  }

  save(record: TicketRecord): void {
    this.batch().save.push(record);
  }

  remove(ticketId: string): void {
    this.batch().remove.push(ticketId);
  }

  keep(kept: KeptAssignment): void {
    this.batch().keep.push(kept);
  }

  /**
   * Asked as a step tells or orders: always this step's commit, even before its first write (the
   * record a `queued` update promises may come later in the same step), so nothing of a step is
   * told before all of the step's writes land.
   */
  inFlight(): PromiseLike<unknown> | undefined {
    return this.batch().committed;
  }

  /** The step ended: its writes go out, after every commit before them. */
  flush(): void {
    const batch = this.open;
    if (!batch) return;
    this.open = undefined;
    const writes: ShardWrites = { save: batch.save, remove: batch.remove, keep: batch.keep };
    const empty = writes.save.length === 0 && writes.remove.length === 0 && writes.keep.length === 0;
    const commit = this.chain(empty ? undefined : writes);
    commit.then(
      () => batch.resolve(),
      (error: unknown) => {
        batch.reject(error);
        this.options.failed(error);
      },
    );
  }

  /** This node took the shard again under `next`: write everything back under it, before anything else. */
  adopt(next: Term): void {
    if (next.token === this.term.token) return;
    this.term = next;
    this.unwritten = this.options.writeBack !== false;
    this.chain(undefined).catch((error: unknown) => this.options.failed(error));
  }

  /** Runs after every commit before it. */
  private chain(writes: ShardWrites | undefined): Promise<void> {
    const previous = this.last ?? Promise.resolve();
    const commit = previous.then(() => this.write(writes));
    this.last = commit;
    commit.then(
      () => this.last === commit && (this.last = undefined),
      () => undefined,
    );
    return commit;
  }

  private async write(writes: ShardWrites | undefined): Promise<void> {
    for (;;) {
      const term = this.term;
      try {
        if (this.unwritten) await this.writeBack(term);
        if (writes) await this.options.store.commit(term, writes);
        if (writes) this.remember(writes);
        return;
      } catch (error) {
        if (error instanceof StoreUnreachable) {
          // Nothing was told or ordered of what waits: hold it, and try again while the term may still be ours.
          if (!this.options.holding()) throw error;
          await this.options.pause(RETRY_MS);
          continue;
        }
        if (!(error instanceof StaleTerm)) throw error;
        if (this.term.token !== term.token) continue; // a newer term of ours came meanwhile
        if (!error.leaseFree) throw error;
        const next = await this.options.retake(term);
        if (!next) throw error;
        this.adopt(next);
      }
    }
  }

  private async writeBack(term: Term): Promise<void> {
    await this.options.store.commit(term, { save: [...this.durable.values()], remove: [], keep: [...this.kept.values()] });
    for (const record of this.durable.values()) {
      await this.options.store.claim(record.request.ticketId, record.request.party.map((p) => p.playerId), this.options.claimTtlMs);
    }
    if (this.term.token === term.token) this.unwritten = false;
  }

  private remember(writes: ShardWrites): void {
    for (const record of writes.save) this.durable.set(record.request.ticketId, record);
    for (const ticketId of writes.remove) this.durable.delete(ticketId);
    for (const k of writes.keep) this.kept.set(k.ticketId, k);
  }

  private batch(): Batch {
    if (this.open) return this.open;
    let resolve!: () => void;
    let reject!: (error: unknown) => void;
    const committed = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
    committed.catch(() => undefined); // its waiters handle a failure; an unhandled rejection must not end the process
    this.open = { save: [], remove: [], keep: [], committed, resolve, reject };
    return this.open;
  }
}

