import { status, type ServiceError } from '@grpc/grpc-js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findGame, type FindOptions } from '../support/find-game.js';
import { TestCoordinator } from '../integration/harness.js';

/**
 * FindGameRequest.location and soft_attributes over real gRPC: decoded with validation and
 * reaching the competitive factory (a locality prior picks the region near the players, a soft
 * preference pairs players of one language), not only in the simulator.
 */
const YAML = `
placement: { policy: spread, createTimeoutMs: 10000, ticketTtlSeconds: 120 }
factories:
  - name: duel
    competitive:
      teams: 2
      teamSize: 1
      batch: { maxTickets: 3, intervalMs: 60000 }
      expansion: [{ afterSeconds: 0, maxLatencyMs: 50 }]
      regions: [eu-west, us-east]
      softPreferences: [{ attribute: language, weight: 5 }]
      locality:
        msPerKm: 0.02
        baseMs: 10
        regions:
          us-east: { latitude: 38.9, longitude: -77.0 }
          eu-west: { latitude: 53.3, longitude: -6.3 }
`;
const NEW_YORK = { latitude: 40.7, longitude: -74.0 };
const DUBLIN = { latitude: 53.35, longitude: -6.26 };

describe('location and soft_attributes over gRPC', () => {
  let coordinator: TestCoordinator;
  beforeEach(async () => {
    coordinator = await TestCoordinator.start(YAML);
    await coordinator.server({ serverId: 'arena', maxGames: 100 });
  });
  afterEach(() => coordinator.stop());

  const find = (ticketId: string, score: number, extra: Partial<FindOptions>) =>
    findGame(coordinator.client(), { ticketId, template: 'duel', party: [{ playerId: `${ticketId}-p`, score }], ...extra });

  it('a NaN or out-of-range latitude or longitude is INVALID_ARGUMENT naming the field; nothing is queued', async () => {
    const cases: [FindOptions['location'], string][] = [
      [{ latitude: NaN, longitude: 0 }, 'location.latitude'],
      [{ latitude: 91, longitude: 0 }, 'location.latitude'],
      [{ latitude: 0, longitude: -180.5 }, 'location.longitude'],
      [{ latitude: 0, longitude: Infinity }, 'location.longitude'],
    ];
    for (const [location, field] of cases) {
      const error = (await find(`bad-${field}-${String(location!.latitude)}-${String(location!.longitude)}`, 1000, { location }).catch((e: ServiceError) => e)) as ServiceError;
      expect(error.code, field).toBe(status.INVALID_ARGUMENT);
      expect(error.details.startsWith(field)).toBe(true);
    }
    const tooMany = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v']));
    const error = (await find('bad-soft', 1000, { softAttributes: tooMany }).catch((e: ServiceError) => e)) as ServiceError;
    expect(error.code).toBe(status.INVALID_ARGUMENT);
    expect(error.details).toMatch(/^soft_attributes/);
    expect(coordinator.running.coordinator.view.ticket('bad-soft')).toBeUndefined();
  });

  it('the locality prior puts players in the region near them, and a shared language outweighs a closer score', async () => {
    // By score alone fr-1 (1000) pairs with en-1 (1001), the closer neighbour; the language
    // preference (5σ) pairs en-1 with en-2 instead, and fr-1 waits.
    // fr-1 is still waiting when the coordinator stops: its call ends then.
    void find('fr-1', 1000, { location: NEW_YORK, softAttributes: { language: 'fr' } }).catch(() => undefined);
    const [en1, en2] = await Promise.all([
      find('en-1', 1001, { location: NEW_YORK, softAttributes: { language: 'en' } }),
      find('en-2', 1003, { location: NEW_YORK, softAttributes: { language: 'en' } }),
    ]);
    expect(en1.assignment.gameId).toBe(en2.assignment.gameId);
    expect(en1.assignment.region).toBe('us-east');
    expect(coordinator.running.coordinator.view.ticket('fr-1')).toBeDefined();
    // Two players in Dublin: eu-west. fr-1 (New York) cannot join them: no region is under 50 ms for both.
    const [dub1, dub2] = await Promise.all([
      find('dub-1', 1001, { location: DUBLIN, softAttributes: { language: 'fr' } }),
      find('dub-2', 1003, { location: DUBLIN, softAttributes: { language: 'fr' } }),
    ]);
    expect(dub1.assignment.gameId).toBe(dub2.assignment.gameId);
    expect(dub1.assignment.region).toBe('eu-west');
    expect(coordinator.running.coordinator.view.ticket('fr-1')).toBeDefined();
  });
});
