import type { TicketRecord } from '../../coordinator/ports.js';
import { MemoryShardStore } from '../store/memory-shard-store.js';
import { StaleTerm, StoreUnreachable, type ClaimConflict, type ShardState, type ShardStore, type ShardWrites, type Term } from '../store/shard-store.js';
import type { SimProcess, SimWorld } from './world.js';

/** Redis in the simulated world: one process holding a MemoryShardStore, restarted keeping or losing its data. */
export class SimRedis {
  readonly process: SimProcess;
  readonly data: MemoryShardStore;
  /** Calls sent and not answered: a restart fails them, as a closed connection fails ioredis' commands in flight. */
  private readonly pending = new Set<{ caller: SimProcess; reject: (error: Error) => void }>();

  constructor(private readonly world: SimWorld) {
    this.process = world.process('redis');
    this.data = new MemoryShardStore(() => world.now);
  }

  /** kill -9 and start again after `downMs`, with AOF always (`kept`) or no persistence (`lost`). */
  restart(mode: 'kept' | 'lost', downMs: number): void {
    this.world.kill(this.process);
    this.data.restart(mode);
    for (const call of this.pending) this.world.after(call.caller, 1, () => call.reject(new StoreUnreachable('redis connection lost')));
    this.pending.clear();
    this.world.after(this.world.process('sim'), downMs, () => this.world.revive(this.process));
  }

  /** A node's client: each call is a request and a reply over the simulated network, applied atomically in between. */
  client(caller: SimProcess): ShardStore {
    const call = <T>(op: (data: MemoryShardStore) => T): Promise<T> =>
      new Promise<T>((resolve, reject) => {
        if (this.process.state === 'down') {
          this.world.after(caller, 1, () => reject(new StoreUnreachable('redis unreachable (connection refused)')));
          return;
        }
        const waiting = { caller, reject };
        this.pending.add(waiting);
        this.world.send(caller, this.process, () => {
          const answer = op(this.data);
          this.world.send(this.process, caller, () => {
            this.pending.delete(waiting);
            resolve(answer);
          });
        });
      });
    return {
      beat: (node, ttlMs) => call((d) => d.beat(node, ttlMs)),
      acquire: (shard, node, leaseMs) => call((d) => d.acquire(shard, node, leaseMs)),
      renew: (term, leaseMs) => call((d) => d.renew(term, leaseMs)),
      release: (term) => call((d) => d.release(term)),
      holders: (count) => call((d) => d.holders(count)),
      commit: async (term: Term, writes: ShardWrites) => {
        const refused = await call((d) => d.commit(term, writes));
        if (refused) throw new StaleTerm(term, refused === 'free');
      },
      restore: (shard): Promise<ShardState> => call((d) => d.restore(shard)),
      claim: (ticketId, playerIds, ttlMs): Promise<ClaimConflict | undefined> => call((d) => d.claim(ticketId, playerIds, ttlMs)),
      unclaim: (ticketId, playerIds) => call((d) => d.unclaim(ticketId, playerIds)),
    };
  }
}

export type { TicketRecord };
