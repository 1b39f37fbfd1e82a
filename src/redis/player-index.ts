import type { PlayerClaimConflict, PlayerIndex } from '../cluster/ports.js';
import { playerKeys } from './keys.js';
import { defineScripts, runScript, type RedisClient } from './script-set.js';

/**
 * One live ticket per player across the cluster (the PlayerIndex port). A party is claimed in
 * one script, all players or none; claiming again for the same ticket succeeds (a client
 * resuming on another node). All players share one hash (one Cluster slot): a party's players
 * must be side by side for the claim to be atomic, and it is one small command per ticket.
 */
export class RedisPlayerIndex implements PlayerIndex {
  private constructor(private readonly client: RedisClient) {}

  static async open(client: RedisClient): Promise<RedisPlayerIndex> {
    await defineScripts(client);
    return new RedisPlayerIndex(client);
  }

  async claim(ticketId: string, playerIds: readonly string[]): Promise<PlayerClaimConflict | undefined> {
    if (playerIds.length === 0) throw new RangeError('playerIds must name at least one player');
    const answer = await runScript<[number, string?, string?]>(this.client, 'gfPlayersClaim', [playerKeys.live], [ticketId, ...playerIds]);
    return answer[0] === 1 ? undefined : { playerId: answer[1]!, ticketId: answer[2]! };
  }

  /** Frees the players still held by this ticket. */
  async release(ticketId: string, playerIds: readonly string[]): Promise<void> {
    await this.releaseCount(ticketId, playerIds);
  }

  /** As release, answering how many players were freed. */
  releaseCount(ticketId: string, playerIds: readonly string[]): Promise<number> {
    if (playerIds.length === 0) return Promise.resolve(0);
    return runScript<number>(this.client, 'gfPlayersRelease', [playerKeys.live], [ticketId, ...playerIds]);
  }

  async holder(playerId: string): Promise<string | undefined> {
    return (await this.client.hget(playerKeys.live, playerId)) ?? undefined;
  }
}
