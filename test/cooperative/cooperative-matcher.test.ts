import { describe, expect, it } from 'vitest';
import { valueFromScalar, valueKey } from '../../src/attributes/attribute-value.js';
import { CooperativeMatcher } from '../../src/cooperative/index.js';
import { attributeSetOf, matchingCases } from './matching-cases.js';

describe('cooperative matching cases (shared table)', () => {
  for (const c of matchingCases) {
    describe(c.name, () => {
      const matcher = new CooperativeMatcher({
        maxPlayers: c.maxPlayers,
        order: c.order,
        matchableKeys: c.matchableKeys,
        reservationMs: 60_000,
      });
      for (const g of c.games) {
        matcher.addGame({ ...g, attributes: attributeSetOf(g.attributes), open: g.open ?? true });
      }
      c.probes.forEach((probe, i) => {
        it(`${i + 1}. ${probe.why}`, () => {
          if (probe.kind === 'find') {
            const found = matcher.reserve(attributeSetOf(probe.query), probe.party, `${c.name}#${i}`, c.now);
            expect(found?.gameId ?? null).toBe(probe.expect);
          } else {
            const predicates = probe.predicates.map(([key, value]) => [key, valueKey(valueFromScalar(value))] as const);
            const { openGamesByOpenSlots, ...stats } = matcher.stats(predicates, probe.mode, c.now);
            expect(stats).toEqual(probe.expect);
            expect(openGamesByOpenSlots.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(stats.openGames);
          }
        });
      });
    });
  }
});
