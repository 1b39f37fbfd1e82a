import type { BatchEntry } from './batch-entry.js';
import { packTeams } from './team-packing.js';

/**
 * A place a ticket can be in during a batch: a game being formed, or the bench (a ticket that
 * goes back to the pool unless the hill-climber brings it into a game). A bench place holds one
 * ticket as one team of one entry, so swaps treat games and bench alike.
 */
export interface BatchPlace {
  readonly bench: boolean;
  readonly teams: BatchEntry[][];
  cost: number;
}

/**
 * The hill-climber's starting point (Battle.net talk, "Hill Climbing": "take a batch of players,
 * assemble some games"): walk the batch in score order and cut it into consecutive games of
 * `teams x teamSize` players. A party that would overflow the game being filled is held back and
 * starts the next one, so parties stay whole and near their score neighbours; a group that cannot
 * be packed into full teams sheds its last party to the bench. Places come out in score order,
 * which is what lets the climber look for swaps among neighbours. O(n) plus packing per game.
 */
export function assembleGames(sorted: readonly BatchEntry[], teams: number, teamSize: number): BatchPlace[] {
  const playersPerGame = teams * teamSize;
  const places: BatchPlace[] = [];
  const bench = (entry: BatchEntry): void => {
    places.push({ bench: true, teams: [[entry]], cost: 0 });
  };
  let group: BatchEntry[] = [];
  let groupPlayers = 0;
  let heldBack: BatchEntry[] = [];

  const offer = (entry: BatchEntry): void => {
    if (groupPlayers + entry.size > playersPerGame) {
      heldBack.push(entry);
      return;
    }
    group.push(entry);
    groupPlayers += entry.size;
    if (groupPlayers < playersPerGame) return;
    const packed = packTeams(group, teams, teamSize);
    if (packed === undefined) {
      const shed = group.pop() as BatchEntry;
      groupPlayers -= shed.size;
      bench(shed);
      return;
    }
    places.push({ bench: false, teams: packed, cost: 0 });
    group = [];
    groupPlayers = 0;
    const retry = heldBack;
    heldBack = [];
    for (const held of retry) offer(held);
  };

  for (const entry of sorted) offer(entry);
  for (const entry of [...group, ...heldBack]) bench(entry);
  return places;
}
