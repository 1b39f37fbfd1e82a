import { latencyPrior, type LocalityConfig } from '../competitive/index.js';
import type { SimPlayer } from './population.js';

/** Used for players' real latency when the factory configures no locality of its own. */
export const DEFAULT_ROUTE = { msPerKm: 0.02, baseMs: 10 };

/** A player's real latency to each located region: the distance prior times their route factor. */
export function trueLatencies(player: SimPlayer, locality: LocalityConfig): Map<string, number> {
  const prior = latencyPrior(locality, player.location);
  for (const [region, ms] of prior) prior.set(region, ms * player.routeFactor);
  return prior;
}
