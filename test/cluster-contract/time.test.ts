/** The rules of time and ownership: calls answered by their deadline, fencing tokens up, failover bounded. */
import { describe, expect, it } from 'vitest';
import type { Observation } from '../../src/cluster/contract/index.js';
import { answered, assigned, check, fence, find, game, queued, rules, seat, started } from './history.js';

describe('answered-in-time', () => {
  it('passes calls answered at or before their deadline, and a call with no deadline', () => {
    expect(rules(check([started(0, 'c1', 100), started(1, 'c2', 50), answered(50, 'c2'), answered(100, 'c1'), started(101, 'c3')], {}, 10_000))).toEqual([]);
  });

  it('fails a call past its deadline as time passes (once, even if answered later) and one never answered by the finish', () => {
    const history = [started(0, 'c1', 100), started(0, 'c2', 200), fence(150, 0, 1, 'a'), answered(160, 'c1')];
    const seen: string[] = [];
    const v = check(history, {}, 300);
    for (const x of v) seen.push(`${x.ids.call}@${x.at}`);
    expect(rules(v)).toEqual(['answered-in-time: unanswered call', 'answered-in-time: unanswered call']);
    expect(seen).toEqual(['c1@100', 'c2@200']);
  });
});

describe('fence-monotonic', () => {
  it('passes tokens that go up, whichever node takes the shard', () => {
    expect(rules(check([fence(0, 1, 1, 'a'), fence(1, 2, 1, 'b'), fence(2, 1, 2, 'b'), fence(3, 1, 7, 'a')]))).toEqual([]);
  });

  it('fails a token that does not go up (a Redis restart that forgot the last)', () => {
    const v = check([fence(0, 1, 5, 'a'), fence(1, 1, 5, 'b'), fence(2, 1, 1, 'c')]);
    expect(rules(v)).toEqual(['fence-monotonic: token went back', 'fence-monotonic: token went back']);
    expect(v[1]!.ids).toEqual({ shard: 1, token: 1, previous: 5, node: 'c' });
  });
});

describe('failover-bound', () => {
  const shardOf = (factory: string) => (factory === 'fa' ? 0 : 1);
  const before: Observation[] = [fence(0, 0, 1, 'a'), fence(0, 1, 1, 'b'), game(1, 's', 'g', 4, 'fa'), find(2, 't1', ['p1'], 'fa'), queued(3, 't1', 1), find(4, 't2', ['p2'], 'fb'), queued(5, 't2', 1)];
  const died: Observation = { kind: 'node-died', at: 10, node: 'a' };

  it('passes a dead owner’s ticket assigned within lease + 1 s, and ignores the survivor’s', () => {
    const history = [...before, died, fence(2010, 0, 2, 'b'), seat(3000, 's', 'g', 'p1'), assigned(3010, 't1', 's', 'g')];
    expect(rules(check(history, { shardOf, leaseMs: 2000 }, 20_000)).filter((r) => r.startsWith('failover'))).toEqual([]);
  });

  it('fails a dead owner’s ticket still waiting at the bound (as time passes), counted from capacity when it came later', () => {
    const late = check([...before, died, { kind: 'capacity', at: 500, factory: 'fa' }, fence(3400, 0, 2, 'b')], { shardOf, leaseMs: 2000 }, 20_000);
    const bound = late.filter((v) => v.rule === 'failover-bound');
    expect(bound.map((v) => [v.ids.ticket, v.at])).toEqual([['t1', 3500]]);
    const waitCapacity = check([...before, died, fence(9000, 0, 2, 'b')], { shardOf, leaseMs: 2000, awaitCapacity: true }, 20_000);
    expect(waitCapacity.filter((v) => v.rule === 'failover-bound')).toEqual([]);
  });
});
