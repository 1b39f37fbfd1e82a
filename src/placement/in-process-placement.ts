import { DemandApportion } from './apportion-policy.js';
import { CreationQueue } from './creation-queue.js';
import type { Drained, Placement, PlacementPort } from './placement-port.js';
import { SlotLedger, type ServerCapacity, type ServerPolicy } from './slot-ledger.js';

/**
 * The embedded adapter of PlacementPort: a SlotLedger and a CreationQueue in this process.
 * Every call does its work synchronously and returns a settled promise, so calls take effect in
 * the order they are made.
 */
export class InProcessPlacement implements PlacementPort {
  private readonly ledger: SlotLedger;
  private readonly demand = new DemandApportion();
  private readonly queue = new CreationQueue<undefined>({ apportion: this.demand });

  constructor(
    policy: ServerPolicy,
    private readonly now: () => number,
  ) {
    this.ledger = new SlotLedger(policy);
  }

  async addServer(serverId: string, factories: readonly string[], capacity: ServerCapacity, runningGames: number): Promise<void> {
    this.ledger.addServer(serverId, factories, capacity, runningGames, this.now());
  }

  async removeServer(serverId: string): Promise<void> {
    this.ledger.removeServer(serverId);
  }

  async setCapacity(serverId: string, capacity: ServerCapacity): Promise<void> {
    this.ledger.setCapacity(serverId, capacity, this.now());
  }

  async gameEnded(serverId: string): Promise<void> {
    this.ledger.gameEnded(serverId);
  }

  async recordDemand(factory: string): Promise<void> {
    this.demand.recordRequest(factory, this.now());
  }

  async place(factory: string, requestId: string, priority: number): Promise<Placement> {
    if (this.queue.depth(factory) === 0) {
      const serverId = this.ledger.claim(factory, this.now());
      if (serverId !== undefined) return { serverId };
    }
    this.queue.push(factory, requestId, undefined, priority);
    return { position: this.queue.position(requestId)! };
  }

  async confirm(serverId: string): Promise<void> {
    this.ledger.confirm(serverId);
  }

  async release(serverId: string): Promise<void> {
    this.ledger.release(serverId);
  }

  async withdraw(requestId: string): Promise<boolean> {
    return this.queue.remove(requestId);
  }

  async drain(): Promise<Drained> {
    const now = this.now();
    const placed: { requestId: string; factory: string; serverId: string }[] = [];
    // Factories the queue passed over for lack of a claimable slot: if only a start token is
    // missing, the caller should drain again when the next one comes.
    const passedOver = new Set<string>();
    for (;;) {
      const next = this.queue.pop((factory) => {
        const ok = this.ledger.canClaim(factory, now);
        if (!ok) passedOver.add(factory);
        return ok;
      }, now);
      if (!next) break;
      const serverId = this.ledger.claim(next.factory, now)!;
      placed.push({ requestId: next.ticketId, factory: next.factory, serverId });
    }
    let retryAt: number | undefined;
    for (const factory of passedOver) {
      const at = this.ledger.nextStartAt(factory, now);
      if (at !== undefined && at > now) retryAt = Math.min(retryAt ?? at, at);
    }
    return { placed, retryAt };
  }

  async position(requestId: string): Promise<number | undefined> {
    return this.queue.position(requestId);
  }

  async head(factory: string, count: number): Promise<string[]> {
    return this.queue.peek(factory, count);
  }

  async depth(factory?: string): Promise<number> {
    return this.queue.depth(factory);
  }

  async freeSlots(factory?: string): Promise<number> {
    return this.ledger.freeSlots(factory);
  }
}
