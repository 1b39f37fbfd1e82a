import type { GeoPoint } from '../competitive/index.js';
import { Sampler } from './sampling.js';
import type { Scenario } from './scenario.js';

/** One simulated player: the hidden truth the matchers never see. */
export interface SimPlayer {
  readonly id: string;
  readonly index: number;
  readonly trueSkill: number;
  readonly region: string;
  readonly location: GeoPoint;
  readonly language: string;
  /** Multiplies the locality prior to give this player's real latency (routes differ). */
  readonly routeFactor: number;
}

export function createPopulation(scenario: Scenario, seed: number): SimPlayer[] {
  const sample = new Sampler(seed);
  const { population } = scenario;
  const weights = population.regions.map((r) => r.weight);
  const players: SimPlayer[] = [];
  for (let index = 0; index < population.players; index++) {
    const region = population.regions[sample.weighted(weights)]!;
    const languages = Object.entries(region.languages);
    const language = languages[sample.weighted(languages.map(([, w]) => w))]![0];
    players.push({
      id: `p${index}`,
      index,
      trueSkill: sample.normal(population.skill.mean, population.skill.sd),
      region: region.name,
      location: {
        latitude: clamp(sample.normal(region.latitude, region.spreadDegrees), -89, 89),
        longitude: wrap(sample.normal(region.longitude, region.spreadDegrees)),
      },
      language,
      routeFactor: Math.exp(sample.normal(0, 0.15)),
    });
  }
  return players;
}

function clamp(x: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, x));
}

function wrap(longitude: number): number {
  return ((((longitude + 180) % 360) + 360) % 360) - 180;
}
