import { expect } from 'vitest';
import type { PlayerIndex } from '../../src/cluster/ports.js';
import type { ContractCase } from './contract.js';

/** What every PlayerIndex adapter must do. */
export const playerIndexCases: readonly ContractCase<PlayerIndex>[] = [
  {
    name: 'a party is claimed whole and its players name their ticket',
    async run(make) {
      const index = await make();
      expect(await index.claim('t1', ['a', 'b'])).toBeUndefined();
      expect(await index.holder('a')).toBe('t1');
      expect(await index.holder('b')).toBe('t1');
      expect(await index.holder('c')).toBeUndefined();
    },
  },
  {
    name: 'a party with one player already held is refused, naming the player and the ticket, and claims nobody',
    async run(make) {
      const index = await make();
      await index.claim('t1', ['b']);
      expect(await index.claim('t2', ['a', 'b', 'c'])).toEqual({ playerId: 'b', ticketId: 't1' });
      expect(await index.holder('a')).toBeUndefined();
      expect(await index.holder('c')).toBeUndefined();
    },
  },
  {
    name: 'claiming again for the same ticket (a retry) succeeds',
    async run(make) {
      const index = await make();
      await index.claim('t1', ['a']);
      expect(await index.claim('t1', ['a'])).toBeUndefined();
    },
  },
  {
    name: 'release frees the players, who can then be claimed by another ticket',
    async run(make) {
      const index = await make();
      await index.claim('t1', ['a', 'b']);
      await index.release('t1', ['a', 'b']);
      expect(await index.holder('a')).toBeUndefined();
      expect(await index.claim('t2', ['a', 'b'])).toBeUndefined();
    },
  },
  {
    name: "release by a ticket that no longer holds a player leaves the new holder's claim",
    async run(make) {
      const index = await make();
      await index.claim('t1', ['a']);
      await index.release('t1', ['a']);
      await index.claim('t2', ['a']);
      await index.release('t1', ['a']);
      expect(await index.holder('a')).toBe('t2');
    },
  },
  {
    name: 'of concurrent claims sharing a player, exactly one wins',
    async run(make) {
      const index = await make();
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) => Promise.resolve(index.claim(`t${i}`, [`p${i}`, 'shared']))),
      );
      expect(answers.filter((a) => a === undefined)).toHaveLength(1);
      const winner = answers.findIndex((a) => a === undefined);
      expect(await index.holder('shared')).toBe(`t${winner}`);
      for (let i = 0; i < 20; i++) expect(await index.holder(`p${i}`)).toBe(i === winner ? `t${i}` : undefined);
    },
  },
];
