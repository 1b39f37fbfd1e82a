/** The seat rules: games within their size, servers within their slots, every assignment backed by a seat. */
import { describe, expect, it } from 'vitest';
import { ContractMonitor } from '../../src/cluster/contract/index.js';
import { assigned, check, find, game, gameEnded, placed, queued, rules, seat, slots } from './history.js';

describe('game-size and server-slots', () => {
  it('passes a full game and a server at its slots, and a slot reused after a game ended', () => {
    const history = [slots(0, 's', 2), game(1, 's', 'g1', 2), seat(2, 's', 'g1', 'a'), seat(3, 's', 'g1', 'b'), game(4, 's', 'g2', 2), gameEnded(5, 's', 'g1'), game(6, 's', 'g3', 2)];
    expect(rules(check(history))).toEqual([]);
  });

  it('fails a game over its size (once) and a server over its slots', () => {
    const history = [slots(0, 's', 1), game(1, 's', 'g1', 2), seat(2, 's', 'g1', 'a'), seat(3, 's', 'g1', 'b'), seat(4, 's', 'g1', 'c'), seat(5, 's', 'g1', 'd'), game(6, 's', 'g2', 2)];
    const v = check(history);
    expect(rules(v)).toEqual(['game-size: game over its size', 'server-slots: server over its slots']);
    expect(v[0]).toMatchObject({ at: 4, ids: { server: 's', game: 'g1', seats: 3, maxPlayers: 2 } });
  });
});

describe('told-has-seat', () => {
  it('passes an assignment told after its seat reached the server', () => {
    expect(rules(check([game(0, 's', 'g'), ...placed(1, 't', 'p', 's', 'g')]))).toEqual([]);
  });

  it('fails an assignment told before its seat (late) and one whose seat never came, and a seat under another token', () => {
    const history = [
      find(0, 'late', ['p1']), queued(1, 'late'), assigned(2, 'late', 's', 'g'), seat(3, 's', 'g', 'p1'),
      find(4, 'never', ['p2']), queued(5, 'never'), assigned(6, 'never', 's', 'g'),
      find(7, 'other', ['p3']), queued(8, 'other'), seat(9, 's', 'g', 'p3', 'old-token'), assigned(10, 'other', 's', 'g', 'new-token'),
    ];
    const v = check(history);
    expect(rules(v)).toEqual(['told-has-seat: told without seat', 'told-has-seat: told without seat', 'told-has-seat: told without seat', 'told-has-seat: seat never arrived', 'told-has-seat: seat never arrived']);
    expect(v.slice(3).map((x) => x.ids.ticket)).toEqual(['never', 'other']);
    const monitor = new ContractMonitor();
    for (const o of history) monitor.observe(o);
    expect(monitor.lateSeatLagsMs).toEqual([1]);
  });

  it('fails an assignment to a game that ended, its seats with it', () => {
    const history = [game(0, 's', 'g'), seat(1, 's', 'g', 'p'), gameEnded(2, 's', 'g'), find(3, 't', ['p']), queued(4, 't'), assigned(5, 't', 's', 'g')];
    expect(rules(check(history))).toEqual(['told-has-seat: told without seat', 'told-has-seat: seat never arrived']);
  });
});
