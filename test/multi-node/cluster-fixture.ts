import type { MatchmakerClient } from '../../src/generated/gamefactory/v1/matchmaker.js';
import { GameServerConnection } from '../../clients/lib/game-server-connection.js';
import { findGame, type FindResult } from '../../clients/lib/find-game.js';

export const PARTITION = { difficulty: 'hard', hardcore: false, version: 'v201' } as const;

export function server(address: string, serverId: string, maxGames: number, runningGames = [] as GameServerConnection['identity']['runningGames']): GameServerConnection {
  return new GameServerConnection(address, { serverId, endpoint: `${serverId}:7777`, attributes: { ...PARTITION }, templates: ['diablo'], maxGames, runningGames }, { autoJoin: true });
}

export function find(client: MatchmakerClient, ticketId: string, signal?: AbortSignal): Promise<FindResult> {
  return findGame(client, { ticketId, template: 'diablo', party: [`p-${ticketId}`], partition: { ...PARTITION } }, signal);
}

/** Retries `attempt` until it resolves (a call refused while the matcher moves), up to `timeoutMs`. */
export async function retried<T>(attempt: () => Promise<T>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
