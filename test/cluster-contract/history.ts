/** Hand-made histories for the contract's tests: a clock that moves and small builders of observations. */
import { ContractMonitor, type ContractOptions, type Observation, type Violation } from '../../src/cluster/contract/index.js';

/** Feeds observations (in order) and then finishes at `finishAt` (default: the last one's time). */
export function check(history: readonly Observation[], options: ContractOptions = {}, finishAt?: number): Violation[] {
  const monitor = new ContractMonitor(options);
  const out = history.flatMap((o) => monitor.observe(o));
  return [...out, ...monitor.finish(finishAt ?? history.at(-1)?.at ?? 0)];
}

export const rules = (violations: readonly Violation[]) => violations.map((v) => `${v.rule}: ${v.what}`);

export const find = (at: number, ticketId: string, playerIds: string[], factory = 'f', callId = `${ticketId}@${at}`): Observation => ({ kind: 'find', at, ticketId, playerIds, factory, callId });
export const queued = (at: number, ticketId: string, position?: number): Observation => ({ kind: 'queued', at, ticketId, position });
export const assigned = (at: number, ticketId: string, serverId: string, gameId: string, token = `tok-${gameId}`): Observation => ({ kind: 'assigned', at, ticketId, serverId, gameId, token });
export const ended = (at: number, ticketId: string, reason: 'cancelled' | 'expired' | 'declined' | 'refused' | 'other', detail = ''): Observation => ({ kind: 'ended', at, ticketId, reason, detail });
export const seat = (at: number, serverId: string, gameId: string, playerId: string, token = `tok-${gameId}`): Observation => ({ kind: 'seat', at, serverId, gameId, playerId, token });
export const game = (at: number, serverId: string, gameId: string, maxPlayers = 4, factory = 'f'): Observation => ({ kind: 'game', at, serverId, gameId, factory, maxPlayers });
export const gameEnded = (at: number, serverId: string, gameId: string): Observation => ({ kind: 'game-ended', at, serverId, gameId });
export const slots = (at: number, serverId: string, maxGames: number): Observation => ({ kind: 'slots', at, serverId, maxGames });
export const fence = (at: number, shard: number, token: number, node: string): Observation => ({ kind: 'fence', at, shard, token, node });
export const started = (at: number, callId: string, deadlineAt?: number): Observation => ({ kind: 'call-started', at, callId, deadlineAt });
export const answered = (at: number, callId: string): Observation => ({ kind: 'call-answered', at, callId });

/** A ticket found, queued, seated by its server and then told: the happy path. */
export function placed(at: number, ticketId: string, player: string, serverId: string, gameId: string, factory = 'f', position?: number): Observation[] {
  return [find(at, ticketId, [player], factory), queued(at + 1, ticketId, position), seat(at + 2, serverId, gameId, player), assigned(at + 3, ticketId, serverId, gameId)];
}
