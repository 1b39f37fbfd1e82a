import type { PlayerClaimConflict } from '../../cluster/ports.js';
import { ROOT } from '../keys.js';
import { runScript, type RedisClient } from '../script-set.js';

/** One key per player (its own hash tag): no single slot carries every player's claim. */
export const playerClaimKey = (playerId: string) => `${ROOT}:{pl:${playerId.replace(/[{}]/g, '_')}}:ticket`;

/**
 * One live ticket per player across a sharded cluster: a node's gateway claims the party before
 * it forwards a find to the shard's owner, and the owner releases it with the core's `release`
 * effects. Players are claimed one by one (their keys may sit on different Cluster masters): a
 * conflict releases those this call claimed. A claim outlives the ticket's time to live by a
 * margin, so one left by an owner that died between assigning and releasing expires.
 */
export class RedisPlayerClaims {
  constructor(
    private readonly client: RedisClient,
    private readonly claimMs: number,
  ) {}

  async claim(ticketId: string, playerIds: readonly string[]): Promise<PlayerClaimConflict | undefined> {
    const held = await Promise.all(playerIds.map((p) => runScript<string | null>(this.client, 'gfPlayerClaim', [playerClaimKey(p)], [ticketId, this.claimMs])));
    const conflict = held.findIndex((h) => h !== null);
    if (conflict < 0) return undefined;
    await this.release(
      ticketId,
      playerIds.filter((_, i) => held[i] === null),
    );
    return { playerId: playerIds[conflict]!, ticketId: held[conflict]! };
  }

  async release(ticketId: string, playerIds: readonly string[]): Promise<void> {
    await Promise.all(playerIds.map((p) => runScript(this.client, 'gfPlayerRelease', [playerClaimKey(p)], [ticketId])));
  }
}
