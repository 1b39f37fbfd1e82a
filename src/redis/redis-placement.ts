import type { Drained, Placement, PlacementPort } from '../placement/placement-port.js';
import type { ServerCapacity, ServerPolicy } from '../placement/slot-ledger.js';
import { defineScripts, runScript, type RedisClient } from './script-set.js';

export interface RedisPlacementOptions {
  readonly client: RedisClient;
  readonly policy: ServerPolicy;
  readonly now: () => number;
  /** Key prefix; the part in braces is the Cluster hash tag. Default "gf:{placement}". */
  readonly prefix?: string;
  /** As DemandApportion: smallest weight a factory gets, and the recent-requests half-life. */
  readonly floorWeight?: number;
  readonly recentHalfLifeMs?: number;
}

/**
 * PlacementPort on Redis: the slot ledger and the creation queue as Lua scripts
 * (src/redis/scripts), one script per call, so every call is one atomic transition and one
 * round trip, whichever coordinator makes it. Same rules as InProcessPlacement (the contract
 * table in test/contracts/placement-port.contract.ts runs against both).
 *
 * All keys share one hash tag, not one per factory: a server's slots are shared by every factory
 * it hosts, and drain() shares freed slots fairly across factories, so a claim must see the
 * server and all its factories' lines at once. Placement runs once per game, not per ticket.
 */
export class RedisPlacement implements PlacementPort {
  private readonly client: RedisClient;
  private readonly prefix: string;
  private readonly floorWeight: number;
  private readonly halfLifeMs: number;

  private constructor(private readonly options: RedisPlacementOptions) {
    this.client = options.client;
    this.prefix = options.prefix ?? 'gf:{placement}';
    this.floorWeight = options.floorWeight ?? 1;
    this.halfLifeMs = options.recentHalfLifeMs ?? 60_000;
  }

  static async open(options: RedisPlacementOptions): Promise<RedisPlacement> {
    await defineScripts(options.client);
    return new RedisPlacement(options);
  }

  async addServer(serverId: string, factories: readonly string[], capacity: ServerCapacity, runningGames: number): Promise<void> {
    checkCapacity(capacity);
    await this.run('gfServerAdd', this.now(), serverId, JSON.stringify(factories), capacity.maxGames, capacity.maxStartsPerSecond, runningGames);
  }

  async removeServer(serverId: string): Promise<void> {
    await this.run('gfServerRemove', '', serverId);
  }

  async setCapacity(serverId: string, capacity: ServerCapacity): Promise<void> {
    checkCapacity(capacity);
    await this.run('gfServerCapacity', this.now(), serverId, capacity.maxGames, capacity.maxStartsPerSecond);
  }

  async gameEnded(serverId: string): Promise<void> {
    await this.run('gfGameEnded', '', serverId);
  }

  async recordDemand(factory: string): Promise<void> {
    await this.run('gfDemandRecord', this.now(), factory, this.halfLifeMs);
  }

  async place(factory: string, requestId: string, priority: number): Promise<Placement> {
    if (!Number.isFinite(priority)) throw new RangeError(`priority must be a finite number, got ${priority}`);
    const [kind, value] = await this.run<[string, string | number]>('gfPlacementPlace', this.now(), factory, requestId, priority);
    return kind === 'server' ? { serverId: String(value) } : { position: Number(value) };
  }

  async confirm(serverId: string): Promise<void> {
    await this.run('gfSlotConfirm', '', serverId);
  }

  async release(serverId: string): Promise<void> {
    await this.run('gfSlotRelease', '', serverId);
  }

  async withdraw(requestId: string): Promise<boolean> {
    return (await this.run<number>('gfQueueRemove', '', requestId)) === 1;
  }

  async drain(): Promise<Drained> {
    const now = this.now();
    const out = await this.run<string[]>('gfQueueDrain', now, this.floorWeight, this.halfLifeMs);
    const placed: { requestId: string; factory: string; serverId: string }[] = [];
    for (let i = 1; i + 2 < out.length; i += 3) {
      placed.push({ requestId: out[i]!, factory: out[i + 1]!, serverId: out[i + 2]! });
    }
    return { placed, retryAt: out[0] === '' ? undefined : Number(out[0]) };
  }

  async position(requestId: string): Promise<number | undefined> {
    const position = await this.run<number | null>('gfQueuePosition', '', requestId);
    return position ?? undefined;
  }

  async head(factory: string, count: number): Promise<string[]> {
    if (count <= 0) return [];
    const members = await this.client.zrange(`${this.prefix}:q:${factory}`, '0', String(count - 1));
    return members.map((m) => m.slice(16));
  }

  async depth(factory?: string): Promise<number> {
    if (factory === undefined) return this.client.hlen(`${this.prefix}:queued`);
    return this.client.zcard(`${this.prefix}:q:${factory}`);
  }

  async freeSlots(factory?: string): Promise<number> {
    const value =
      factory === undefined ? await this.client.get(`${this.prefix}:totalfree`) : await this.client.hget(`${this.prefix}:fslots`, factory);
    return Number(value ?? 0);
  }

  private now(): number {
    return this.options.now();
  }

  /** ARGV[1] is `now` ("" when the call does not read the clock), ARGV[2] the policy. */
  private run<T = unknown>(script: string, now: number | '', ...args: (string | number)[]): Promise<T> {
    return runScript<T>(this.client, script, [this.prefix], [now, this.options.policy, ...args]);
  }
}

/** The same checks and messages as the in-process ledger and start-rate bucket. */
function checkCapacity(capacity: ServerCapacity): void {
  if (!Number.isInteger(capacity.maxGames) || capacity.maxGames < 0) {
    throw new RangeError(`maxGames must be an integer >= 0, got ${capacity.maxGames}`);
  }
  const rate = capacity.maxStartsPerSecond;
  if (!(rate >= 0) || !Number.isFinite(rate)) {
    throw new RangeError(`maxStartsPerSecond must be a finite number >= 0, got ${rate}`);
  }
}
