import { describe, expect, it } from 'vitest';
import type { CompetitiveTicket, GeoPoint, LocalityConfig } from '../../src/competitive/index.js';
import { greatCircleKm, latencyPrior, withLatencyPrior } from '../../src/competitive/locality.js';
import { config, matcher, solo, steps } from './fixtures.js';

const TOKYO: GeoPoint = { latitude: 35.7, longitude: 139.7 };
const DUBLIN: GeoPoint = { latitude: 53.3, longitude: -6.3 };
const WASHINGTON: GeoPoint = { latitude: 38.9, longitude: -77.0 };

const locality: LocalityConfig = {
  msPerKm: 0.02,
  baseMs: 10,
  regionLocations: new Map([
    ['us-east', WASHINGTON],
    ['eu-west', DUBLIN],
    ['ap-northeast', TOKYO],
  ]),
};
const regions = ['us-east', 'eu-west', 'ap-northeast'];

function at(id: string, where: GeoPoint, extra: Partial<CompetitiveTicket> = {}): CompetitiveTicket {
  return { ...solo(id, 0), location: where, ...extra };
}

describe('locality: a latency prior from latitude/longitude (Destiny thesis)', () => {
  it('measures great-circle distance: Seattle to Los Angeles is about 1,545 km', () => {
    const km = greatCircleKm({ latitude: 47.6062, longitude: -122.3321 }, { latitude: 34.0522, longitude: -118.2437 });
    expect(km).toBeGreaterThan(1530);
    expect(km).toBeLessThan(1560);
    expect(greatCircleKm(TOKYO, TOKYO)).toBe(0);
  });

  it('turns distance into ms as baseMs + msPerKm x km, for every located region', () => {
    const prior = latencyPrior(locality, DUBLIN);
    expect(prior.get('eu-west')).toBe(10);
    expect(prior.get('us-east')).toBeCloseTo(10 + 0.02 * greatCircleKm(DUBLIN, WASHINGTON), 9);
    expect(prior.get('ap-northeast')).toBeGreaterThan(prior.get('us-east') as number);
  });

  it('measured pings win over the prior; without a location or a locality config nothing changes', () => {
    const c = config({ regions, locality });
    const measured = at('m', DUBLIN, { latencyMs: new Map([['us-east', 30]]) });
    expect(withLatencyPrior(c, measured)).toBe(measured);
    const nowhere = solo('n', 0);
    expect(withLatencyPrior(c, nowhere)).toBe(nowhere);
    const unconfigured = at('u', DUBLIN);
    expect(withLatencyPrior(config({ regions }), unconfigured)).toBe(unconfigured);
    expect(withLatencyPrior(c, unconfigured).latencyMs.get('eu-west')).toBe(10);
  });

  it('the matcher plays two located tickets in the region nearest to them', () => {
    const m = matcher(config({ regions, locality, expansion: steps([0, Infinity, 100]) }));
    m.add(at('a', TOKYO));
    m.add(at('b', { latitude: 34.7, longitude: 135.5 })); // Osaka
    const [game] = m.formGames(1000);
    expect(game?.region).toBe('ap-northeast');
  });

  it('a measured ping overrides where the ticket says it is', () => {
    const m = matcher(config({ regions, locality, expansion: steps([0, Infinity, 100]) }));
    m.add(at('a', TOKYO, { latencyMs: new Map([['us-east', 20]]) }));
    m.add(at('b', WASHINGTON));
    const [game] = m.formGames(1000);
    expect(game?.region).toBe('us-east');
  });

  it('the latency cap widens with waiting: Tokyo and Dublin only meet once the cap allows it', () => {
    const m = matcher(config({ regions, locality, expansion: steps([0, Infinity, 100], [10_000, Infinity, 500]) }));
    m.add(at('a', TOKYO));
    m.add(at('b', DUBLIN));
    expect(m.formGames(1000)).toEqual([]);
    const games = m.formGames(10_000);
    expect(games).toHaveLength(1);
    // Worst prior latency is minimised: eu-west (Tokyo-Dublin) vs ap-northeast (the same distance) tie, first wins.
    expect(games[0]?.region).toBe('eu-west');
  });
});
