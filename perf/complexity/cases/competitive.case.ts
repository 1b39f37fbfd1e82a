import { defineCase } from '../case.js';
import {
  CompetitiveMatcher,
  seededRandom,
  type CompetitiveConfig,
  type CompetitiveTicket,
} from '../../../src/competitive/index.js';

/**
 * Competitive matcher budgets (DESIGN.md, "Complexity budgets"): a batch of n tickets costs
 * O(n log n) in total (the sort); adding or removing one waiting ticket is O(log n) or better.
 */

function normalScore(random: () => number): number {
  // Box-Muller: skill in the factory is roughly bell-shaped (Battle.net talk, "Statistical Issues").
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

function tickets(n: number, prefix: string, seed: number): CompetitiveTicket[] {
  const random = seededRandom(seed);
  const regions = ['eu', 'us'];
  return Array.from({ length: n }, (_, k) => ({
    ticketId: `${prefix}${k}`,
    players: [{ playerId: `${prefix}${k}`, score: normalScore(random) }],
    // Spread over the last minute, so tickets sit at different expansion steps.
    enqueuedAt: -Math.floor(random() * 60_000),
    latencyMs: new Map(regions.map((r) => [r, 20 + Math.floor(random() * 120)])),
    preferredMaps: random() < 0.5 ? ['arena'] : [],
    vetoedMaps: random() < 0.2 ? ['canyon'] : [],
  }));
}

const oneOnOne: CompetitiveConfig = {
  teams: 2,
  teamSize: 1,
  batch: { maxTickets: 1_000, intervalMs: 1_000 },
  expansion: [
    { afterMs: 0, maxScoreGap: 0.05, maxLatencyMs: 80 },
    { afterMs: 20_000, maxScoreGap: 0.2, maxLatencyMs: 120 },
    { afterMs: 40_000, maxScoreGap: 0.5, maxLatencyMs: Infinity },
  ],
  hillClimbBudgetMs: 0,
  teamScore: 'mean',
  maps: ['arena', 'canyon', 'docks'],
  regions: ['eu', 'us'],
};

function matcherWith(pool: readonly CompetitiveTicket[]): CompetitiveMatcher {
  const matcher = new CompetitiveMatcher(oneOnOne, { now: () => 0, random: seededRandom(1) });
  for (const ticket of pool) matcher.add(ticket);
  return matcher;
}

/** 5v5 with parties of 1-3 (issue 10, defect 10): the team path, assembly by party size, no climb. */
const fiveOnFive: CompetitiveConfig = {
  ...oneOnOne,
  teamSize: 5,
  hillClimbBudgetMs: 0,
};

function partyTickets(n: number, seed: number): CompetitiveTicket[] {
  return tickets(n, 'p', seed).map((ticket, k) => {
    const size = 1 + (k % 3);
    const players = Array.from({ length: size }, (_, i) => ({ playerId: `${ticket.ticketId}.${i}`, score: ticket.players[0]!.score }));
    return { ...ticket, players };
  });
}

export default [
  defineCase({
    name: 'competitive: form a 1v1 batch of n tickets (sort, pair neighbours)',
    budget: 'O(n log n)',
    minLog2: 10,
    maxLog2: 15,
    setup(n) {
      const pool = tickets(n, 't', n);
      return { matcher: matcherWith(pool), pool };
    },
    run({ matcher, pool }) {
      const games = matcher.formGames(0);
      // Put the matched tickets back, in their original order, so every call sees the same n.
      const matched = new Set<string>();
      for (const game of games) for (const team of game.teams) for (const id of team) matched.add(id);
      for (const ticket of pool) if (matched.has(ticket.ticketId)) matcher.add(ticket);
      return games.length;
    },
  }),
  defineCase({
    name: 'competitive: add then remove one ticket in a pool of n',
    budget: 'O(log n)',
    minLog2: 10,
    maxLog2: 15,
    setup(n) {
      return { matcher: matcherWith(tickets(n, 't', n)), extra: tickets(1_024, 'x', 7) };
    },
    run({ matcher, extra }, i) {
      const ticket = extra[i % extra.length] as CompetitiveTicket;
      matcher.add(ticket);
      return matcher.remove(ticket.ticketId);
    },
  }),
  defineCase({
    name: 'competitive: form a 5v5 batch of n party tickets (sort, assemble by party size)',
    budget: 'O(n log n)',
    minLog2: 10,
    maxLog2: 15,
    setup(n) {
      const pool = partyTickets(n, n);
      const matcher = new CompetitiveMatcher(fiveOnFive, { now: () => 0, random: seededRandom(1) });
      for (const ticket of pool) matcher.add(ticket);
      return { matcher, pool };
    },
    run({ matcher, pool }) {
      const games = matcher.formGames(0);
      const matched = new Set<string>();
      for (const game of games) for (const team of game.teams) for (const id of team) matched.add(id);
      for (const ticket of pool) if (matched.has(ticket.ticketId)) matcher.add(ticket);
      return games.length;
    },
  }),
];
