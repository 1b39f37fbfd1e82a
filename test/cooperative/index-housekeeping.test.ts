import { describe, expect, it } from 'vitest';
import { CooperativeMatcher } from '../../src/cooperative/index.js';
import { attributeSetOf } from './matching-cases.js';

describe('index housekeeping', () => {
  it('drops attribute values and subsets no game uses any more, without losing live ones', () => {
    const matcher = new CooperativeMatcher({ maxPlayers: 4, matchableKeys: ['act', 'zone'], reservationMs: 1_000 });
    const add = (k: number): void =>
      matcher.addGame({ gameId: `g${k}`, attributes: attributeSetOf({ act: k % 2, zone: `z${k}` }), playerIds: [], open: true, startedAt: k });
    for (let k = 0; k < 400; k++) add(k);
    for (let k = 0; k < 390; k++) matcher.removeGame(`g${k}`);
    for (let k = 395; k < 400; k++) matcher.setAttributes(`g${k}`, attributeSetOf({ act: 7, zone: `moved${k}` }));

    const { openGames, attributes } = matcher.indexContents();
    expect([...(attributes.get('zone')?.keys() ?? [])].sort()).toEqual(
      ['s:z390', 's:z391', 's:z392', 's:z393', 's:z394', 's:moved395', 's:moved396', 's:moved397', 's:moved398', 's:moved399'].sort(),
    );
    // '', act 0, 1 and 7, then zone and act+zone for each of the 10 live games
    expect(openGames.size).toBe(1 + 3 + 10 + 10);
    expect(matcher.reserve(attributeSetOf({ zone: 'z392' }), ['p'], 't1', 0)).toEqual({ gameId: 'g392' });
    expect(matcher.reserve(attributeSetOf({ zone: 'z10' }), ['p'], 't2', 0)).toBeUndefined();
    add(10);
    expect(matcher.reserve(attributeSetOf({ zone: 'z10' }), ['q'], 't3', 0)).toEqual({ gameId: 'g10' });
  });
});
