import type { BatchEntry } from './batch-entry.js';
import { GameComposition } from './game-composition.js';
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
 * assemble some games"): walk the batch in score order, keeping the tickets not yet placed in one
 * queue per party size, and form a game as soon as those tickets can make one, from the earliest
 * (lowest-scored) tickets of each size the game needs (game-composition.ts answers which sizes).
 * Games come out near their score neighbours and parties stay whole.
 *
 * Exact on sizes, so the bench never holds a game that could be formed (once, the
 * old walk cut consecutive groups and shed a group's last party when it could not be packed, so
 * three trios in a row in a 5v5 kept every later solo off the field until its deadline). A ticket
 * whose own window cannot reach the ticket being added leaves the queue for the bench, since the
 * ones after it score higher still. Places come out in score order (of their lowest ticket), which
 * is what lets the climber look for swaps among neighbours. O(n) plus one memoised composition
 * question per ticket, then a sort of the places.
 */
export function assembleGames(sorted: readonly BatchEntry[], teams: number, teamSize: number): BatchPlace[] {
  const playersPerGame = teams * teamSize;
  const composition = new GameComposition(teams, teamSize);
  const queues: BatchEntry[][] = Array.from({ length: teamSize + 1 }, () => []);
  const heads = new Array<number>(teamSize + 1).fill(0);
  const counts = new Array<number>(teamSize + 1).fill(0);
  let queuedPlayers = 0;
  const placed: { readonly first: number; readonly place: BatchPlace }[] = [];
  const bench = (entry: BatchEntry): void => {
    placed.push({ first: entry.index, place: { bench: true, teams: [[entry]], cost: 0 } });
  };
  const dequeue = (size: number): BatchEntry => {
    const queue = queues[size] as BatchEntry[];
    const at = heads[size] as number;
    const entry = queue[at] as BatchEntry;
    heads[size] = at + 1;
    counts[size] = (counts[size] as number) - 1;
    queuedPlayers -= size;
    return entry;
  };

  for (const entry of sorted) {
    if (entry.size < 1 || entry.size > teamSize) {
      bench(entry);
      continue;
    }
    for (let size = 1; size <= teamSize; size++) {
      const queue = queues[size] as BatchEntry[];
      while ((heads[size] as number) < queue.length) {
        const front = queue[heads[size] as number] as BatchEntry;
        if (entry.score - front.score <= front.maxScoreGap) break;
        bench(dequeue(size));
      }
    }
    (queues[entry.size] as BatchEntry[]).push(entry);
    counts[entry.size] = (counts[entry.size] as number) + 1;
    queuedPlayers += entry.size;
    while (queuedPlayers >= playersPerGame) {
      const take = composition.find(counts);
      if (take === undefined) break;
      const members: BatchEntry[] = [];
      for (let size = 1; size <= teamSize; size++) {
        for (let k = 0; k < (take[size] as number); k++) members.push(dequeue(size));
      }
      // The sizes fit by construction; packTeams picks balanced teams among the ways they fit.
      const packed = packTeams(members, teams, teamSize) as BatchEntry[][];
      let first = Infinity;
      for (const member of members) first = Math.min(first, member.index);
      placed.push({ first, place: { bench: false, teams: packed, cost: 0 } });
    }
  }
  for (let size = 1; size <= teamSize; size++) {
    const queue = queues[size] as BatchEntry[];
    for (let at = heads[size] as number; at < queue.length; at++) bench(queue[at] as BatchEntry);
  }
  placed.sort((a, b) => a.first - b.first);
  return placed.map((p) => p.place);
}
