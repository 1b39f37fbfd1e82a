import type { LocalityConfig } from '../competitive/index.js';
import { EventQueue } from './event-queue.js';
import { trueLatencies } from './latency-model.js';
import type { SimPlayer } from './population.js';
import { RatingLedger } from './rating-ledger.js';
import type { RatingSystem } from './rating-system-contract.js';
import { Sampler, streamSeed } from './sampling.js';
import type { Scenario } from './scenario.js';
import type { QueuedTicket, SimMatch, SimulatedQueue } from './queues/simulated-queue.js';

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
  /** Systems that rate every game of the run (the same games for all). */
  readonly ratings?: readonly RatingSystem[];
  /** One of `ratings`: players are matched on its score(), windows widened by its uncertainty(); none = on true skill. */
  readonly matchOn?: RatingSystem;
  /** Waits and gaps of games formed before this are left out (the queue filling up). */
  readonly warmupMs?: number;
  /**
   * Tickets arrive as one Poisson stream at perSecond from the first second, each a random idle
   * party that is idle again as soon as its game starts. Without it, arrivals are sessions that
   * re-queue after 5-minute games: a run shorter than a few sessions never reaches perSecond (a
   * 1,000 s run at 20/s averaged 7.6/s), and 50,000 players cannot keep 200/s in 5-minute games.
   */
  readonly steady?: boolean;
  /**
   * A ready check on every game (factory `acceptance`): each player accepts with probability
   * `acceptance` and answers after a uniform 0..answerMs; the game starts once the last one has
   * accepted, or breaks at the first decline: decliners' parties leave, the others queue again
   * with their original enqueue time.
   */
  readonly readyCheck?: { readonly acceptance: number; readonly answerMs: number };
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
  /** One per rating system, in the order given. */
  readonly ledgers: RatingLedger[];
  /**
   * Per counted game whose matcher gave a quality figure: its predicted chance that the side with
   * the higher matching score wins, whether it did, and its match quality.
   */
  readonly favourites: { readonly probability: number; readonly won: boolean; readonly matchQuality: number }[];
  /** Proposed games a decline broke (with a ready check). */
  readonly brokenMatches: number;
}

interface Party {
  readonly players: SimPlayer[];
}

/**
 * One discrete-event run in simulated time: sessions start as a Poisson process (the
 * daily curve thins it), a session's party queues, plays, and re-queues after each game with
 * probability 1 - 1/gamesMean. The queue is checked every checkMs. Outcomes come from true skills:
 * each player performs at trueSkill + N(0, performanceSd), a team at its mean, best team first.
 * Separate seeded streams for arrivals, party make-up and outcomes: every matcher sees the same
 * session starts, and the whole run replays bit for bit.
 */
export function runCompetitive(options: CompetitiveRunOptions): CompetitiveRunLog {
  const { scenario, population, queue, teams, teamSize, locality } = options;
  const seed = scenario.seed;
  const arrivals = new Sampler(streamSeed(seed, 10));
  const parties = new Sampler(streamSeed(seed, 11));
  const outcomes = new Sampler(streamSeed(seed, 12));
  const answers = new Sampler(streamSeed(seed, 13));
  const sd = scenario.population.skill.sd;
  const checkMs = scenario.checkMs;
  const warmupMs = options.warmupMs ?? 0;
  const gamesMean = options.steady ? 1 : scenario.sessions.gamesMean;
  const sessionRate = options.perSecond / gamesMean / 1000; // per ms
  const curve = scenario.arrivals.dailyCurve;
  const peakFactor = 1 + (curve?.amplitude ?? 0);
  const partySizes = Object.entries(scenario.arrivals.partySizes)
    .map(([size, weight]) => [Number(size), weight] as const)
    .filter(([size]) => size <= teamSize);
  if (partySizes.length === 0) throw new Error(`scenario arrivals.partySizes: none fits a team of ${teamSize}`);
  const partyWeights = partySizes.map(([, w]) => w);
  // A player's real latencies never change: computed once, not at every ticket and game.
  const latencyCache = new Array<ReadonlyMap<string, number> | undefined>(population.length);
  const latenciesOf = (p: SimPlayer): ReadonlyMap<string, number> => (latencyCache[p.index] ??= trueLatencies(p, locality));
  const bestLatency = new Float64Array(population.length).fill(NaN);
  const bestLatencyOf = (p: SimPlayer): number => {
    const known = bestLatency[p.index]!;
    return Number.isNaN(known) ? (bestLatency[p.index] = bestOf(latenciesOf(p))) : known;
  };

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

  const ledgers = (options.ratings ?? []).map((system) => new RatingLedger(system, population));
  const matchOn = options.matchOn === undefined ? undefined : ledgers.find((l) => l.system === options.matchOn);
  if (options.matchOn !== undefined && matchOn === undefined) throw new Error('runCompetitive: matchOn must be one of ratings');

  const waiting = new Map<string, { party: Party; ticket: QueuedTicket }>();
  let ticketSeq = 0;
  const enqueue = (party: Party, at: number): void => {
    const scores = party.players.map((p) => (matchOn ? matchOn.system.score(matchOn.of(p)) : p.trueSkill));
    const uncertainty = matchOn
      ? party.players.reduce((s, p) => s + matchOn.system.uncertainty(matchOn.of(p)), 0) / party.players.length
      : 0;
    const lead = party.players[0]!;
    const latencies = latenciesOf(lead);
    const measured = parties.uniform() < scenario.population.measuredPingShare;
    const ticket: QueuedTicket = {
      id: `t${ticketSeq++}`,
      players: party.players,
      playerScores: scores,
      score: scores.reduce((s, x) => s + x, 0) / scores.length,
      uncertainty,
      enqueuedAt: at,
      latencyMs: measured ? latencies : NO_PINGS,
      location: lead.location,
      language: lead.language,
      bestLatencyMs: bestLatencyOf(lead),
    };
    waiting.set(ticket.id, { party, ticket });
    queue.arrive(ticket);
  };

  const ends = new EventQueue<Party>();
  const proposals = new EventQueue<{ match: SimMatch; sides: { party: Party; ticket: QueuedTicket }[][]; declined: Set<string> }>();
  let brokenMatches = 0;
  const waitsMs: number[] = [];
  const gapsSigma: number[] = [];
  const latencyMs: number[] = [];
  const favourites: CompetitiveRunLog['favourites'] = [];
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
      const size = partySizes[parties.weighted(partyWeights)]![0];
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

    // Ready checks settled up to now: the game starts, or the match breaks.
    for (let at = proposals.peekAt(); at !== undefined && at <= now; at = proposals.peekAt()) {
      const { value: proposal } = proposals.pop()!;
      if (proposal.declined.size === 0) {
        start(proposal.match, proposal.sides, at);
        continue;
      }
      brokenMatches += 1;
      for (const w of proposal.sides.flat()) {
        if (proposal.declined.has(w.ticket.id)) w.party.players.forEach(release);
        else {
          waiting.set(w.ticket.id, w);
          queue.arrive(w.ticket);
        }
      }
    }

    for (const match of queue.check(now)) {
      const sides = match.teams.map((ids) => ids.map((id) => waiting.get(id)!));
      for (const side of sides) for (const w of side) waiting.delete(w.ticket.id);
      const check = options.readyCheck;
      if (!check) {
        start(match, sides, now);
        continue;
      }
      // Every player answers after a uniform delay; a party declines when any of its players does.
      let lastAccept = now;
      let firstDecline = Infinity;
      const declined = new Set<string>();
      for (const w of sides.flat()) {
        for (let k = 0; k < w.party.players.length; k++) {
          const answeredAt = now + answers.uniform() * check.answerMs;
          if (answers.uniform() < check.acceptance) lastAccept = Math.max(lastAccept, answeredAt);
          else {
            declined.add(w.ticket.id);
            firstDecline = Math.min(firstDecline, answeredAt);
          }
        }
      }
      proposals.push(declined.size === 0 ? lastAccept : firstDecline, { match, sides, declined });
    }
  }
  /** A game starts at `now`: its waits and gap are counted, its outcome rated, its parties play. */
  function start(match: SimMatch, sides: { party: Party; ticket: QueuedTicket }[][], now: number): void {
    games += 1;
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
        for (const p of players) worst = Math.max(worst, latenciesOf(p).get(match.region) ?? Infinity);
        latencyMs.push(worst);
      }
    }
    // Outcome from true skills: each player performs around their skill, a side at its mean.
    const sidePlayers = sides.map((side) => side.flatMap((w) => w.party.players));
    const perf = sidePlayers.map(
      (members) => members.reduce((s, p) => s + outcomes.normal(p.trueSkill, scenario.population.performanceSd), 0) / members.length,
    );
    const order = perf.map((_, i) => i).sort((a, b) => perf[b]! - perf[a]!);
    const ranks = new Array<number>(perf.length);
    order.forEach((side, place) => (ranks[side] = place));
    for (const ledger of ledgers) ledger.record(sidePlayers, ranks, now);
    if (counted && match.quality !== undefined) {
      // The favourite as the matcher saw it: the side with the highest summed matching score.
      const seen = sides.map((side) => side.reduce((sum, w) => sum + w.ticket.playerScores.reduce((a, b) => a + b, 0), 0));
      let favourite = 0;
      for (let t = 1; t < seen.length; t++) if (seen[t]! > seen[favourite]!) favourite = t;
      favourites.push({ probability: match.quality.favouriteWinProbability, won: ranks[favourite] === 0, matchQuality: match.quality.matchQuality });
    }
    const length = scenario.sessions.gameSeconds * 1000 * (0.5 + outcomes.uniform());
    if (options.steady) for (const w of all) w.party.players.forEach(release);
    else for (const w of all) ends.push(now + length, w.party);
  }
  for (const ledger of ledgers) ledger.error.snapshot();
  return {
    waitsMs,
    gapsSigma,
    latencyMs,
    games,
    ticketsQueued: ticketSeq,
    unmatched: queue.waiting,
    ledgers,
    favourites,
    brokenMatches,
  };
}

/** Shared by every ticket that measured no pings; nobody writes to a ticket's pings. */
const NO_PINGS: ReadonlyMap<string, number> = new Map();

function bestOf(latencies: ReadonlyMap<string, number>): number {
  let best = Infinity;
  for (const ms of latencies.values()) best = Math.min(best, ms);
  return best;
}
