import type { CandidateTicket, ProposeGamesRequest, ProposedGame } from '@gamefactory/protocol/v1/match_function';

/**
 * A small match function: tickets sorted by their party's mean score, longest waiters first among
 * equals; each game is filled from consecutive tickets, each ticket going to the team with room
 * whose score total is lowest (a greedy balance, as a snake draft). A ticket that fits no team of
 * the game being filled waits for the next batch. The map is the most preferred one nobody vetoed,
 * the region the one with the lowest worst latency. Replace this function with your own logic.
 */
export function proposeGames(request: ProposeGamesRequest): ProposedGame[] {
  const { teams: teamCount, teamSize } = request;
  if (teamCount < 1 || teamSize < 1) return [];
  const sorted = [...request.tickets].sort((a, b) => meanScore(a) - meanScore(b) || Number(b.waitedMs - a.waitedMs));
  const games: ProposedGame[] = [];
  let teams = emptyTeams(teamCount);
  for (const ticket of sorted) {
    const size = ticket.players.length;
    let best: Team | undefined;
    for (const team of teams) {
      if (team.players + size > teamSize) continue;
      if (!best || team.total < best.total) best = team;
    }
    if (!best) continue;
    best.tickets.push(ticket);
    best.players += size;
    best.total += ticket.players.reduce((sum, p) => sum + p.score, 0);
    if (teams.every((team) => team.players === teamSize)) {
      const members = teams.flatMap((team) => team.tickets);
      games.push({
        teams: teams.map((team) => ({ ticketIds: team.tickets.map((t) => t.ticketId) })),
        map: chooseMap(request.maps, members),
        region: chooseRegion(request.regions, members),
      });
      teams = emptyTeams(teamCount);
    }
  }
  return games;
}

interface Team {
  tickets: CandidateTicket[];
  players: number;
  total: number;
}

function emptyTeams(count: number): Team[] {
  return Array.from({ length: count }, () => ({ tickets: [], players: 0, total: 0 }));
}

function meanScore(ticket: CandidateTicket): number {
  return ticket.players.reduce((sum, p) => sum + p.score, 0) / Math.max(1, ticket.players.length);
}

function chooseMap(maps: readonly string[], members: readonly CandidateTicket[]): string {
  const allowed = maps.filter((map) => !members.some((t) => t.vetoedMaps.includes(map)));
  if (allowed.length === 0) return '';
  const votes = (map: string) => members.filter((t) => t.preferredMaps.includes(map)).length;
  return allowed.reduce((best, map) => (votes(map) > votes(best) ? map : best));
}

function chooseRegion(regions: readonly string[], members: readonly CandidateTicket[]): string {
  if (regions.length === 0) return '';
  const worst = (region: string) => Math.max(0, ...members.map((t) => t.latenciesMs[region] ?? 0));
  return regions.reduce((best, region) => (worst(region) < worst(best) ? region : best));
}
