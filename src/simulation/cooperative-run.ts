import { valueFromScalar, valueKey } from '../attributes/attribute-value.js';
import type { CoordinatorConfig } from '../config/config.js';
import { CooperativeMatcher } from '../cooperative/index.js';
import { EventQueue } from './event-queue.js';
import { Sampler, streamSeed } from './sampling.js';
import type { Scenario } from './scenario.js';

export interface CooperativeSummary {
  readonly factory: string;
  readonly maxPlayers: number;
  readonly perSecond: number;
  /**
   * Players in one combination of matchable values at steady state (Little's law: arrivals per
   * second x session seconds / combinations). Holes open one departure at a time and close only
   * when someone of the same combination arrives, so their count wanders like sqrt of this.
   */
  readonly playersPerCombination: number;
  readonly arrivals: number;
  /** Games open at the samples of the second half of the run (steady state). */
  readonly gamesSampled: number;
  /** Share of those games that were full. */
  readonly fullShare: number;
  readonly meanPlayersPerGame: number;
}

/**
 * The real CooperativeMatcher on simulated time: solo players arrive (Poisson), pick
 * values of the matchable attributes, reserve a seat in a matching open game or, when none has
 * room, start one (the server's CreateGame, without a server); they leave after an exponential
 * session and empty games end. Every minute of the second half the share of full games is sampled.
 */
export function runCooperative(scenario: Scenario, config: CoordinatorConfig, perSecond = scenario.cooperative!.perSecond): CooperativeSummary {
  const settings = { ...scenario.cooperative!, perSecond };
  const template = config.templates.find((t) => t.name === settings.factory);
  if (template?.strategy.kind !== 'cooperative') throw new Error(`scenario cooperative.factory: "${settings.factory}" is not a cooperative template`);
  const { maxPlayers, order, reservationMs } = template.strategy.settings;
  const keys = Object.keys(settings.matchable);
  const matcher = new CooperativeMatcher({ maxPlayers, order, reservationMs, matchableKeys: keys });
  const sample = new Sampler(streamSeed(scenario.seed, 20));
  const leaves = new EventQueue<{ gameId: string; playerId: string }>();
  const players = new Map<string, number>();
  const durationMs = settings.hours * 3_600_000;
  let games = 0;
  let arrivals = 0;
  let sampled = 0;
  let full = 0;
  let seated = 0;
  let nextSampleAt = durationMs / 2;
  const leave = (at: number): void => {
    const { value } = leaves.pop()!;
    matcher.playerLeft(value.gameId, value.playerId, at);
    const left = (players.get(value.gameId) ?? 1) - 1;
    players.set(value.gameId, left);
    if (left === 0) {
      matcher.removeGame(value.gameId);
      players.delete(value.gameId);
    }
  };
  for (let at = sample.exponential(1000 / settings.perSecond); at < durationMs; at += sample.exponential(1000 / settings.perSecond)) {
    while ((leaves.peekAt() ?? Infinity) <= at) leave(leaves.peekAt()!);
    while (nextSampleAt <= at) {
      for (const id of matcher.gameIds()) {
        sampled += 1;
        const n = players.get(id) ?? 0;
        seated += n;
        if (n === maxPlayers) full += 1;
      }
      nextSampleAt += 60_000;
    }
    const playerId = `c${arrivals++}`;
    const query = new Map(keys.map((k) => [k, valueKey(valueFromScalar(pick(sample, settings.matchable[k]!)))]));
    const reserved = matcher.reserve(query, [playerId], `r${playerId}`, at);
    let gameId = reserved?.gameId;
    if (gameId === undefined) {
      gameId = `g${games++}`;
      matcher.addGame({ gameId, attributes: query, playerIds: [], open: true, startedAt: at });
      players.set(gameId, 0);
    }
    matcher.playerJoined(gameId, playerId, at);
    players.set(gameId, (players.get(gameId) ?? 0) + 1);
    leaves.push(at + sample.exponential(settings.sessionMinutes * 60_000), { gameId, playerId });
  }
  return {
    factory: settings.factory,
    maxPlayers,
    perSecond,
    playersPerCombination:
      (perSecond * settings.sessionMinutes * 60) / keys.reduce((n, k) => n * settings.matchable[k]!.length, 1),
    arrivals,
    gamesSampled: sampled,
    fullShare: sampled === 0 ? NaN : full / sampled,
    meanPlayersPerGame: sampled === 0 ? NaN : seated / sampled,
  };
}

function pick<T>(sample: Sampler, values: readonly T[]): T {
  return values[sample.int(values.length)] as T;
}
