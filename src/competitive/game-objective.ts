import type { BatchEntry } from './batch-entry.js';
import type { CompetitiveConfig } from './competitive-config.js';
import { NO_SOFT_PREFERENCES, type SoftPreferences } from './soft-preferences.js';
import { TeamScores } from './team-score.js';
import { NONE_SUITS, NOT_CONFIGURED, type VenueChoice, type VenueSummary } from './venue-choice.js';

/**
 * What the hill-climber minimises, in units of "standard deviations of skill" so its terms can be
 * traded against each other (Destiny thesis, soft-filter weights: "a 70ms change is worth a 10%
 * skill expansion"). The weights below are ours, chosen so that team balance dominates, then spread:
 * - team imbalance: 1 per sigma of difference between the best and worst team score;
 * - skill spread: 0.5 per sigma between the best and worst player;
 * - latency: 1 per LATENCY_MS_PER_SIGMA of the worst member latency;
 * - maps: 0.25 per fraction of players whose stated preferences the map misses;
 * - a game that cannot start (a member's window exceeded, no map, no region, a team not full)
 *   costs NOT_VIABLE plus how far windows are exceeded, so the climb has a slope toward viability.
 * A ticket left on the bench costs BENCH_PER_PLAYER_SECOND per player per second waited, so that
 * among equally good games the longer-waiting tickets play first.
 */
export const OBJECTIVE_WEIGHTS = {
  teamImbalance: 1,
  spread: 0.5,
  latencyMsPerSigma: 200,
  unmetMapPreference: 0.25,
  notViable: 100,
  benchPerPlayerSecond: 0.02,
} as const;

export interface GameEvaluation {
  readonly viable: boolean;
  readonly cost: number;
  readonly scoreGap: number;
  readonly teamImbalance: number;
  readonly map: string | undefined;
  readonly region: string | undefined;
}

/**
 * What one team brings to its game's cost: its players, its aggregated score, its lowest and
 * highest player and ticket scores, and its part of the map and region choice. The hill-climber
 * keeps one per team and, after a move, summarises again only the (at most two) teams the move
 * touched; the game's cost is then put together from the summaries.
 */
export class TeamSummary {
  players = 0;
  score = 0;
  minPlayer = Infinity;
  maxPlayer = -Infinity;
  minTicket = Infinity;
  maxTicket = -Infinity;
  /**
   * The lowest `score + maxScoreGap` and the highest `score - maxScoreGap` of its tickets: a game
   * whose ticket scores all lie between these bounds of every team exceeds no window, so its cost
   * needs no pass over its members (GameObjective.cost).
   */
  lowestReach = Infinity;
  highestReach = -Infinity;

  constructor(readonly venue: VenueSummary) {}
}

export class GameObjective {
  private readonly teamScores = new TeamScores();
  /** Scratch for members, summaries and the last assessment, so costing a game allocates nothing. */
  private readonly members: BatchEntry[] = [];
  private readonly venueScratch: VenueSummary[] = [];
  /** No maps or regions configured: summaries share one empty venue summary and costs skip the choice. */
  private readonly trivialVenue: boolean;
  private readonly summaryScratch: TeamSummary[] = [];
  private viable = false;
  private scoreGap = 0;
  private teamImbalance = 0;
  private map = NONE_SUITS;
  private region = NONE_SUITS;

  constructor(
    private readonly config: Pick<CompetitiveConfig, 'teams' | 'teamSize' | 'teamScore'>,
    private readonly venue: VenueChoice,
    /** The factory's score spread used to normalise; > 0. */
    private readonly sigma: number,
    /** Soft filters of the factory: add to the cost, never to viability. */
    private readonly soft: SoftPreferences = NO_SOFT_PREFERENCES,
  ) {
    this.trivialVenue = venue.trivial;
  }

  newSummary(): TeamSummary {
    return new TeamSummary(this.venue.newSummary());
  }

  /** Fills `into` from the team's members. */
  summarize(team: readonly BatchEntry[], into: TeamSummary): void {
    const aggregation = this.config.teamScore;
    let players = 0;
    let minTicket = Infinity;
    let maxTicket = -Infinity;
    let minPlayer = Infinity;
    let maxPlayer = -Infinity;
    let lowestReach = Infinity;
    let highestReach = -Infinity;
    // The team score of `mean` and `max` in the same pass, adding in TeamScores' order (so the
    // same sums); `weighted` sorts, and is left to TeamScores.
    let sum = 0;
    let max = -Infinity;
    for (const entry of team) {
      players += entry.size;
      const score = entry.score;
      if (score < minTicket) minTicket = score;
      if (score > maxTicket) maxTicket = score;
      const upper = score + entry.maxScoreGap;
      const lower = score - entry.maxScoreGap;
      if (upper < lowestReach) lowestReach = upper;
      if (lower > highestReach) highestReach = lower;
      if (entry.size === 1) {
        // A solo's party score is its player's: read from the entry, not through the ticket's
        // players (three more objects scattered over the heap, per member per move tried).
        if (score < minPlayer) minPlayer = score;
        if (score > maxPlayer) maxPlayer = score;
        sum += score;
        max = Math.max(max, score);
        continue;
      }
      for (const player of entry.ticket.players) {
        const playerScore = player.score;
        if (playerScore < minPlayer) minPlayer = playerScore;
        if (playerScore > maxPlayer) maxPlayer = playerScore;
        sum += playerScore;
        max = Math.max(max, playerScore);
      }
    }
    into.players = players;
    into.minTicket = minTicket;
    into.maxTicket = maxTicket;
    into.minPlayer = minPlayer;
    into.maxPlayer = maxPlayer;
    into.lowestReach = lowestReach;
    into.highestReach = highestReach;
    into.score =
      aggregation === 'weighted' ? this.teamScores.of(team, aggregation) : players === 0 ? 0 : aggregation === 'mean' ? sum / players : max;
    if (!this.trivialVenue) this.venue.summarize(team, into.venue);
  }

  /** The cost of a game whose teams are summarised in `summaries` (same order); allocates nothing. */
  cost(teams: readonly (readonly BatchEntry[])[], summaries: readonly TeamSummary[]): number {
    const { config, venue, sigma } = this;
    let full = teams.length === config.teams;
    let minPlayer = Infinity;
    let maxPlayer = -Infinity;
    let minTicket = Infinity;
    let maxTicket = -Infinity;
    let minTeam = Infinity;
    let maxTeam = -Infinity;
    let lowestReach = Infinity;
    let highestReach = -Infinity;
    let players = 0;
    let members = 0;
    const venues = this.venueScratch;
    const trivialVenue = this.trivialVenue;
    for (let t = 0; t < teams.length; t++) {
      const summary = summaries[t] as TeamSummary;
      members += (teams[t] as readonly BatchEntry[]).length;
      players += summary.players;
      if (summary.lowestReach < lowestReach) lowestReach = summary.lowestReach;
      if (summary.highestReach > highestReach) highestReach = summary.highestReach;
      if (summary.minTicket < minTicket) minTicket = summary.minTicket;
      if (summary.maxTicket > maxTicket) maxTicket = summary.maxTicket;
      if (summary.minPlayer < minPlayer) minPlayer = summary.minPlayer;
      if (summary.maxPlayer > maxPlayer) maxPlayer = summary.maxPlayer;
      if (summary.players !== config.teamSize) full = false;
      if (summary.score < minTeam) minTeam = summary.score;
      if (summary.score > maxTeam) maxTeam = summary.score;
      if (!trivialVenue) venues[t] = summary.venue;
    }
    const scoreGap = members === 0 ? 0 : maxPlayer - minPlayer;
    const teamImbalance = teams.length === 0 ? 0 : maxTeam - minTeam;

    // Reciprocal windows: every ticket must accept every other ticket of the game. When the
    // game's scores lie inside every ticket's window with room to spare (the usual case once a
    // batch is assembled), no window is exceeded and the members need not be read; the margin
    // covers the rounding of score ± window against the per-member test, so near the edge the
    // members are read and the result is the same either way.
    let windowExcess = 0;
    if (!withinEveryWindow(minTicket, maxTicket, lowestReach, highestReach)) windowExcess = this.windowExcess(teams, minTicket, maxTicket);
    // Without maps or regions both choices are NOT_CONFIGURED and add nothing to the cost.
    const map = trivialVenue ? NOT_CONFIGURED : venue.mapOf(venues, teams.length);
    const region = trivialVenue ? NOT_CONFIGURED : venue.regionOf(venues, teams.length);
    const viable = full && windowExcess === 0 && map !== NONE_SUITS && region !== NONE_SUITS;

    const w = OBJECTIVE_WEIGHTS;
    let cost =
      (w.teamImbalance * teamImbalance) / sigma +
      (w.spread * scoreGap) / sigma +
      (region >= 0 ? venue.worstLatencyOf(venues, teams.length, region) / w.latencyMsPerSigma : 0) +
      (map >= 0 && players > 0 ? (w.unmetMapPreference * venue.unmetOf(venues, teams.length, map)) / players : 0) +
      (this.soft.empty ? 0 : this.soft.cost(this.membersOf(teams)));
    if (!viable) cost += w.notViable + windowExcess / sigma;
    this.viable = viable;
    this.scoreGap = scoreGap;
    this.teamImbalance = teamImbalance;
    this.map = map;
    this.region = region;
    return cost;
  }

  /** How far the game's tickets exceed their windows, summed over its members. */
  private windowExcess(teams: readonly (readonly BatchEntry[])[], minTicket: number, maxTicket: number): number {
    let excess = 0;
    for (const team of teams) {
      for (const entry of team) {
        const reach = Math.max(maxTicket - entry.score, entry.score - minTicket);
        if (reach > entry.maxScoreGap) excess += reach - entry.maxScoreGap;
      }
    }
    return excess;
  }

  evaluate(teams: readonly (readonly BatchEntry[])[]): GameEvaluation {
    const summaries = this.summaryScratch;
    for (let t = 0; t < teams.length; t++) {
      const summary = (summaries[t] ??= this.newSummary());
      this.summarize(teams[t] as readonly BatchEntry[], summary);
    }
    const cost = this.cost(teams, summaries);
    return {
      viable: this.viable,
      cost,
      scoreGap: this.scoreGap,
      teamImbalance: this.teamImbalance,
      map: this.venue.mapName(this.map),
      region: this.venue.regionName(this.region),
    };
  }

  benchCost(entry: BatchEntry): number {
    return (OBJECTIVE_WEIGHTS.benchPerPlayerSecond * entry.size * entry.waitMs) / 1000;
  }

  private membersOf(teams: readonly (readonly BatchEntry[])[]): BatchEntry[] {
    const members = this.members;
    members.length = 0;
    for (const team of teams) for (const entry of team) members.push(entry);
    return members;
  }
}

/**
 * True when every ticket of a game whose ticket scores span [minTicket, maxTicket] surely accepts
 * every other: maxTicket - score <= window and score - minTicket <= window for each ticket, given
 * only the lowest score + window (lowestReach) and highest score - window (highestReach) over its
 * tickets. Those were rounded once and the per-member test rounds its own difference, so the
 * bounds must hold with a margin of many units in the last place of the numbers involved; a game
 * inside that margin (or with a NaN score) is not vouched for and its members are read. A NaN
 * window is skipped by the bounds as the member test never counts it exceeded.
 */
function withinEveryWindow(minTicket: number, maxTicket: number, lowestReach: number, highestReach: number): boolean {
  const scale = 1 + Math.abs(minTicket) + Math.abs(maxTicket);
  const upperHolds = lowestReach === Infinity || maxTicket <= lowestReach - 1e-12 * (scale + Math.abs(lowestReach));
  const lowerHolds = highestReach === -Infinity || minTicket >= highestReach + 1e-12 * (scale + Math.abs(highestReach));
  return upperHolds && lowerHolds;
}
