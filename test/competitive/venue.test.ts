import { describe, expect, it } from 'vitest';
import { config, matcher, pairsOf, party, solo, steps } from './fixtures.js';

const maps = ['arena', 'canyon', 'docks'];

describe('maps: vetoes and preferences', () => {
  it('picks a map nobody vetoed', () => {
    const m = matcher(config({ maps }));
    m.add(solo('a', 0, { vetoed: ['arena'] }));
    m.add(solo('b', 0, { vetoed: ['canyon'] }));
    expect(m.formGames(0)[0]?.map).toBe('docks');
  });

  it('maximises preferences among maps nobody vetoed', () => {
    const m = matcher(config({ maps }));
    m.add(solo('a', 0, { preferred: ['canyon', 'docks'] }));
    m.add(solo('b', 0, { preferred: ['docks'], vetoed: ['canyon'] }));
    expect(m.formGames(0)[0]?.map).toBe('docks');
  });

  it('does not pair tickets whose vetoes cover every map', () => {
    const m = matcher(config({ maps }));
    m.add(solo('a', 0, { vetoed: ['arena', 'canyon'] }));
    m.add(solo('b', 0, { vetoed: ['docks'] }));
    expect(m.formGames(0)).toEqual([]);
  });

  it('keeps teams away from a map any member vetoed', () => {
    const m = matcher(config({ teamSize: 2, maps: ['arena', 'canyon'] }));
    m.add(solo('a', 1, { preferred: ['arena'] }));
    m.add(solo('b', 2, { preferred: ['arena'] }));
    m.add(solo('c', 3, { preferred: ['arena'] }));
    m.add(solo('d', 4, { vetoed: ['arena'] }));
    expect(m.formGames(0)[0]?.map).toBe('canyon');
  });

  it('has no map when none are configured', () => {
    const m = matcher(config());
    m.add(solo('a', 0));
    m.add(solo('b', 0));
    expect(m.formGames(0)[0]?.map).toBeUndefined();
  });
});

describe('regions: latency caps', () => {
  const regions = ['eu', 'us'];
  const capped = steps([0, Infinity, 50], [10_000, Infinity, 150]);

  it('picks the region minimising the worst latency', () => {
    const m = matcher(config({ regions }));
    m.add(solo('a', 0, { latency: { eu: 40, us: 60 } }));
    m.add(solo('b', 0, { latency: { eu: 90, us: 70 } }));
    const [game] = m.formGames(0);
    expect(game?.region).toBe('us');
  });

  it('does not pair when no region is under both caps, until the caps relax', () => {
    const m = matcher(config({ regions, expansion: capped }));
    m.add(solo('a', 0, { latency: { eu: 40, us: 100 } }));
    m.add(solo('b', 0, { latency: { eu: 60, us: 45 } }));
    expect(m.formGames(0)).toEqual([]);
    const [game] = m.formGames(10_000);
    expect(game?.region).toBe('eu');
  });

  it('treats a region a ticket did not measure as out of reach', () => {
    const m = matcher(config({ regions }));
    m.add(solo('a', 0, { latency: { eu: 40 } }));
    m.add(solo('b', 0, { latency: { us: 40 } }));
    expect(m.formGames(0)).toEqual([]);
  });

  it('lets a ticket without measurements play anywhere', () => {
    const m = matcher(config({ regions, expansion: capped }));
    m.add(solo('a', 0, { latency: { us: 30 } }));
    m.add(solo('b', 0));
    const [game] = m.formGames(0);
    expect(game?.region).toBe('us');
    const n = matcher(config({ regions }));
    n.add(solo('c', 0));
    n.add(solo('d', 0));
    expect(n.formGames(0)[0]?.region).toBeUndefined();
  });

  it('applies caps to every member of a team game', () => {
    const m = matcher(config({ teamSize: 2, regions, expansion: capped }));
    m.add(party('p', [1, 2], { latency: { eu: 20, us: 49 } }));
    m.add(solo('c', 1, { latency: { eu: 30, us: 40 } }));
    m.add(solo('d', 2, { latency: { eu: 80, us: 45 } }));
    const [game] = m.formGames(0);
    expect(game?.region).toBe('us');
    expect(pairsOf(m.formGames(0))).toEqual([]);
  });
});
