import { playerKeys } from './keys.js';
import { defineScripts, runScript, type RedisClient } from './script-set.js';

export type PlayerClaim = { readonly claimed: true } | { readonly claimed: false; readonly playerId: string; readonly liveTicketId: string };

/**
 * One live ticket per player across the cluster. A party is claimed in one script, all players
 * or none; claiming again for the same ticket succeeds (a client resuming on another node).
 * All players share one hash (one Cluster slot): a party's players must be side by side for the
 * claim to be atomic, and it is one small command per ticket.
 */
export class RedisPlayerIndex {
  private constructor(private readonly client: RedisClient) {}

  static async open(client: RedisClient): Promise<RedisPlayerIndex> {
    await defineScripts(client);
    return new RedisPlayerIndex(client);
  }

  async claim(ticketId: string, playerIds: readonly string[]): Promise<PlayerClaim> {
    if (playerIds.length === 0) throw new RangeError('playerIds must name at least one player');
    const answer = await runScript<[number, string?, string?]>(this.client, 'gfPlayersClaim', [playerKeys.live], [ticketId, ...playerIds]);
    return answer[0] === 1 ? { claimed: true } : { claimed: false, playerId: answer[1]!, liveTicketId: answer[2]! };
  }

  /** Frees the players still held by this ticket; returns how many. */
  release(ticketId: string, playerIds: readonly string[]): Promise<number> {
    if (playerIds.length === 0) return Promise.resolve(0);
    return runScript<number>(this.client, 'gfPlayersRelease', [playerKeys.live], [ticketId, ...playerIds]);
  }

  async liveTicket(playerId: string): Promise<string | undefined> {
    return (await this.client.hget(playerKeys.live, playerId)) ?? undefined;
  }
}
