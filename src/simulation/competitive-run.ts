import type { LocalityConfig } from '../competitive/index.js';
import { EventQueue } from './event-queue.js';
import { trueLatencies } from './latency-model.js';
import type { SimPlayer } from './population.js';
import type { PlayerRating, RatingSystem } from './rating-system-contract.js';
import { RatingError } from './rating-error.js';
import { Sampler, streamSeed } from './sampling.js';
import type { Scenario } from './scenario.js';
import type { QueuedTicket, SimulatedQueue } from './queues/simulated-queue.js';

export interface CompetitiveRunOptions {
  readonly scenario: Scenario;
  readonly population: readonly SimPlayer[];
  readonly queue: SimulatedQueue;
  /** Tickets per second entering the queue (before the daily curve). */
  readonly perSecond: number;
  readonly durationMs: number;
  readonly teams: number;
  readonly teamSize: number;
  /** Regions' locations: players' real latency, and pings for the share that measured them. */
  readonly locality: LocalityConfig;
  /** When given, players are matched on its score() and rated after every game. */
  readonly rating?: RatingSystem;
  /** Waits and gaps of games formed before this are left out (the queue filling up). */
  readonly warmupMs?: number;
}

export interface CompetitiveRunLog {
  readonly waitsMs: number[];
  /** Best minus worst true skill in each game, in population sd. */
  readonly gapsSigma: number[];
  /** Worst real latency to the chosen region, per game whose matcher chose one. */
  readonly latencyMs: number[];
  readonly games: number;
  readonly ticketsQueued: number;
  readonly unmatched: number;
  /** Per simulated hour: games whose sides' mean scores differed, and how often the higher won. */
  readonly higherRatedWins: { hour: number; games: number; wins: number }[];
  readonly ratingError: RatingError | undefined;
}

interface Party {
  readonly players: SimPlayer[];
}

/**
 * One discrete-event run in simulated time (issue 13): sessions start as a Poisson process (the
 * daily curve thins it), a session's party queues, plays, and re-queues after each game with
 * probability 1 - 1/gamesMean. The queue is checked every checkMs. Outcomes come from true skills:
 * each player performs at trueSkill + N(0, performanceSd), a team at its mean, best team first.
 * Separate seeded streams for arrivals, party make-up and outcomes: every matcher sees the same
 * session starts, and the whole run replays bit for bit.
 */
export function runCompetitive(options: CompetitiveRunOptions): CompetitiveRunLog {
  const { scenario, population, queue, teams, teamSize, rating, locality } = options;
  const seed = scenario.seed;
  const arrivals = new Sampler(streamSeed(seed, 10));
  const parties = new Sampler(streamSeed(seed, 11));
  const outcomes = new Sampler(streamSeed(seed, 12));
  const sd = scenario.population.skill.sd;
  const checkMs = scenario.checkMs;
  const warmupMs = options.warmupMs ?? 0;
  const gamesMean = scenario.sessions.gamesMean;
  const sessionRate = options.perSecond / gamesMean / 1000; // per ms
  const curve = scenario.arrivals.dailyCurve;
  const peakFactor = 1 + (curve?.amplitude ?? 0);
  const partySizes = Object.entries(scenario.arrivals.partySizes)
    .map(([size, weight]) => [Number(size), weight] as const)
    .filter(([size]) => size <= teamSize);
  if (partySizes.length === 0) throw new Error(`scenario arrivals.partySizes: none fits a team of ${teamSize}`);

  const idle = population.map((p) => p.index);
  const idleAt = Int32Array.from(idle);
  const takeIdle = (): SimPlayer | undefined => {
    if (idle.length === 0) return undefined;
    const k = parties.int(idle.length);
    const index = idle[k]!;
    const last = idle.pop()!;
    if (k < idle.length) {
      idle[k] = last;
      idleAt[last] = k;
    }
    return population[index];
  };
  const release = (player: SimPlayer): void => {
    idleAt[player.index] = idle.length;
    idle.push(player.index);
  };

  const ratings = new Map<string, PlayerRating>();
  const ratingOf = (p: SimPlayer): PlayerRating => ratings.get(p.id) ?? rating!.initial();
  const ratingError = rating ? new RatingError(population, rating, ratingOf) : undefined;

  const waiting = new Map<string, { party: Party; ticket: QueuedTicket }>();
  let ticketSeq = 0;
  const enqueue = (party: Party, at: number): void => {
    const scores = party.players.map((p) => (rating ? rating.score(ratingOf(p)) : p.trueSkill));
    const uncertainty = rating ? party.players.reduce((s, p) => s + rating.uncertainty(ratingOf(p)), 0) / party.players.length : 0;
    const lead = party.players[0]!;
    const latencies = trueLatencies(lead, locality);
    const measured = parties.uniform() < scenario.population.measuredPingShare;
    const ticket: QueuedTicket = {
      id: `t${ticketSeq++}`,
      players: party.players,
      playerScores: scores,
      score: scores.reduce((s, x) => s + x, 0) / scores.length,
      uncertainty,
      enqueuedAt: at,
      latencyMs: measured ? latencies : new Map(),
      location: lead.location,
      language: lead.language,
      bestLatencyMs: Math.min(...latencies.values()),
    };
    waiting.set(ticket.id, { party, ticket });
    queue.arrive(ticket);
  };

  const ends = new EventQueue<Party>();
  const waitsMs: number[] = [];
  const gapsSigma: number[] = [];
  const latencyMs: number[] = [];
  const hourly: { hour: number; games: number; wins: number }[] = [];
  let games = 0;
  let nextSessionAt = arrivals.exponential(1 / (sessionRate * peakFactor));

  for (let now = checkMs; now <= options.durationMs; now += checkMs) {
    // Session starts up to now: Poisson at the peak rate, thinned by the daily curve.
    while (nextSessionAt <= now) {
      const at = nextSessionAt;
      nextSessionAt += arrivals.exponential(1 / (sessionRate * peakFactor));
      const hour = at / 3_600_000;
      const factor = curve ? 1 + curve.amplitude * Math.cos((2 * Math.PI * (hour - curve.peakHour)) / 24) : 1;
      if (arrivals.uniform() * peakFactor >= factor) continue;
      const size = partySizes[parties.weighted(partySizes.map(([, w]) => w))]![0];
      const players: SimPlayer[] = [];
      for (let k = 0; k < size; k++) {
        const p = takeIdle();
        if (p) players.push(p);
      }
      if (players.length === size) enqueue({ players }, at);
      else players.forEach(release);
    }
    // Games ending up to now: each party plays on or leaves.
    for (let at = ends.peekAt(); at !== undefined && at <= now; at = ends.peekAt()) {
      const { value: party } = ends.pop()!;
      if (outcomes.uniform() < 1 - 1 / gamesMean) enqueue(party, at);
      else party.players.forEach(release);
    }

    for (const match of queue.check(now)) {
      games += 1;
      const sides = match.teams.map((ids) => ids.map((id) => waiting.get(id)!));
      for (const side of sides) for (const w of side) waiting.delete(w.ticket.id);
      const all = sides.flat();
      const players = all.flatMap((w) => w.party.players);
      const counted = now >= warmupMs;
      if (counted) {
        for (const w of all) waitsMs.push(now - w.ticket.enqueuedAt);
        let lo = Infinity;
        let hi = -Infinity;
        for (const p of players) {
          lo = Math.min(lo, p.trueSkill);
          hi = Math.max(hi, p.trueSkill);
        }
        gapsSigma.push((hi - lo) / sd);
        if (match.region !== undefined) {
          let worst = 0;
          for (const p of players) worst = Math.max(worst, trueLatencies(p, locality).get(match.region) ?? Infinity);
          latencyMs.push(worst);
        }
      }
      // Outcome from true skills; the higher-scored side by what the matcher saw.
      const perf = sides.map((side) => {
        const members = side.flatMap((w) => w.party.players);
        return members.reduce((s, p) => s + outcomes.normal(p.trueSkill, scenario.population.performanceSd), 0) / members.length;
      });
      const order = perf.map((_, i) => i).sort((a, b) => perf[b]! - perf[a]!);
      const ranks = new Array<number>(perf.length);
      order.forEach((side, place) => (ranks[side] = place));
      const seen = sides.map((side) => {
        const scores = side.flatMap((w) => w.ticket.playerScores);
        return scores.reduce((s, x) => s + x, 0) / scores.length;
      });
      const top = seen.indexOf(Math.max(...seen));
      if (seen.some((s) => s !== seen[top])) {
        const hour = Math.floor(now / 3_600_000);
        let row = hourly[hourly.length - 1];
        if (row === undefined || row.hour !== hour) hourly.push((row = { hour, games: 0, wins: 0 }));
        row.games += 1;
        if (ranks[top] === 0) row.wins += 1;
      }
      if (rating) {
        const teamIds = sides.map((side) => side.flatMap((w) => w.party.players.map((p) => p.id)));
        const before = new Map(players.map((p) => [p.id, ratingOf(p)]));
        const day = Math.floor(now / 86_400_000);
        for (const [id, r] of rating.update({ teams: teamIds, ranks, day }, before)) ratings.set(id, r);
      }
      const length = scenario.sessions.gameSeconds * 1000 * (0.5 + outcomes.uniform());
      for (const w of all) ends.push(now + length, w.party);
    }
    if (ratingError && now % 3_600_000 === 0) ratingError.snapshot();
  }
  if (ratingError) ratingError.snapshot();
  return {
    waitsMs,
    gapsSigma,
    latencyMs,
    games,
    ticketsQueued: ticketSeq,
    unmatched: queue.waiting,
    higherRatedWins: hourly,
    ratingError,
  };
}
