import { CompetitiveMatcher, seededRandom, type CompetitiveConfig } from '../../competitive/index.js';
import type { QueuedTicket, SimMatch, SimulatedQueue } from './simulated-queue.js';

/**
 * The production CompetitiveMatcher, in process, on simulated time: a batch runs whenever the
 * matcher says one is due (nextBatchAt), and the hill-climb's clock is frozen so its budget never
 * runs out mid-climb (a simulation measures quality, not this machine's speed), unless `climbClock`
 * is given: a study of what the budget buys passes this machine's clock.
 */
export class GamefactoryQueue implements SimulatedQueue {
  readonly name: string;
  private readonly matcher: CompetitiveMatcher;
  /** Whether tickets need their language: only soft preferences read it (a Map per ticket otherwise). */
  private readonly soft: boolean;
  constructor(config: CompetitiveConfig, seed: number, name = 'gamefactory', climbClock: () => number = () => 0) {
    this.name = name;
    this.matcher = new CompetitiveMatcher(config, { now: climbClock, random: seededRandom(seed) });
    this.soft = (config.softPreferences ?? []).length > 0;
  }
  arrive(t: QueuedTicket): void {
    this.matcher.add({
      ticketId: t.id,
      players: t.players.map((p, i) => ({ playerId: p.id, score: t.playerScores[i] as number })),
      enqueuedAt: t.enqueuedAt,
      latencyMs: t.latencyMs,
      preferredMaps: [],
      vetoedMaps: [],
      location: t.location,
      ...(this.soft && { softAttributes: new Map([['language', t.language]]) }),
      ...(t.uncertainty > 0 && { scoreUncertainty: t.uncertainty }),
    });
  }
  check(now: number): SimMatch[] {
    const due = this.matcher.nextBatchAt();
    if (due === undefined || due > now) return [];
    return this.matcher.formGames(now).map((g) => ({
      teams: g.teams,
      ...(g.region !== undefined && { region: g.region }),
      quality: { favouriteWinProbability: g.quality.favouriteWinProbability, matchQuality: g.quality.matchQuality },
    }));
  }
  get waiting(): number {
    return this.matcher.size;
  }
}
