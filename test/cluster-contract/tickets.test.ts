/** The ticket rules: one live ticket per player, nothing told queued lost, FIFO and true positions. */
import { describe, expect, it } from 'vitest';
import { assigned, check, ended, find, game, placed, queued, rules, seat } from './history.js';

describe('one-live-ticket', () => {
  it('passes two tickets of one player one after the other', () => {
    const history = [game(0, 's', 'g'), ...placed(1, 't1', 'p', 's', 'g'), find(10, 't2', ['p']), queued(11, 't2'), seat(12, 's', 'g', 'q'), ended(13, 't2', 'cancelled')];
    expect(rules(check([...history.slice(0, -1), { kind: 'cancel-asked', at: 12, ticketId: 't2' }, history.at(-1)!]))).toEqual([]);
  });

  it('fails a player taken in two live tickets, and a ticket told two games', () => {
    const history = [find(0, 't1', ['p']), queued(1, 't1'), find(2, 't2', ['p', 'q']), queued(3, 't2'), seat(4, 's', 'g1', 'p'), seat(4, 's', 'g1', 'q'), assigned(5, 't2', 's', 'g1'), seat(6, 's', 'g2', 'p'), assigned(7, 't1', 's', 'g2'), assigned(8, 't1', 's', 'g3')];
    const v = check(history).filter((x) => x.rule === 'one-live-ticket');
    expect(rules(v)).toEqual(['one-live-ticket: two live tickets', 'one-live-ticket: seated in two games', 'one-live-ticket: assigned twice']);
    expect(v[0]!.ids).toEqual({ player: 'p', ticket: 't2', other: 't1' });
    expect(v[1]!.at).toBe(6);
  });
});

describe('no-lost', () => {
  it('passes tickets assigned, cancelled when asked, expired after the TTL, and refused before being queued', () => {
    const history = [
      ...placed(0, 't1', 'p1', 's', 'g'),
      find(10, 't2', ['p2']), queued(11, 't2'), { kind: 'cancel-asked' as const, at: 12, ticketId: 't2' }, ended(13, 't2', 'cancelled'),
      find(20, 't3', ['p3']), queued(21, 't3'), ended(1020, 't3', 'expired'),
      find(1030, 't4', ['p4']), ended(1031, 't4', 'refused', 'RESOURCE_EXHAUSTED'),
    ];
    expect(rules(check(history, { ticketTtlMs: 1000 }))).toEqual([]);
  });

  it('fails a silent ticket, a cancel nobody asked for, an early expiry and an error after queued', () => {
    const history = [
      find(0, 'silent', ['p1']), queued(1, 'silent'),
      find(2, 'unasked', ['p2']), queued(3, 'unasked'), ended(4, 'unasked', 'cancelled'),
      find(5, 'early', ['p3']), queued(6, 'early'), ended(500, 'early', 'expired'),
      find(501, 'failed', ['p4']), queued(502, 'failed'), ended(503, 'failed', 'other', 'INTERNAL'),
    ];
    expect(rules(check(history, { ticketTtlMs: 1000 }, 600))).toEqual(['no-lost: cancelled unasked', 'no-lost: expired early', 'no-lost: ended other', 'no-lost: silent']);
  });
});

describe('fifo', () => {
  const waiting = (tickets: string[]) => tickets.flatMap((t, i) => [find(i * 10, t, [`p-${t}`]), queued(i * 10 + 1, t, i + 1)]);
  const seatAndTell = (at: number, t: string) => [seat(at, 's', `g-${t}`, `p-${t}`), assigned(at + 1, t, 's', `g-${t}`)];

  it('passes tickets assigned in first-find order, told their true positions', () => {
    const history = [...waiting(['a', 'b', 'c']), ...seatAndTell(100, 'a'), ...seatAndTell(110, 'b'), ...seatAndTell(120, 'c')];
    expect(rules(check(history, { expectedPosition: (_, t) => t.waitingAhead + 1 }))).toEqual([]);
  });

  it('counts one violation per inverted pair, and a wrong position when the feeder can say', () => {
    const history = [...waiting(['a', 'b', 'c']), queued(35, 'c', 1), ...seatAndTell(100, 'c'), ...seatAndTell(110, 'a'), ...seatAndTell(120, 'b')];
    const v = check(history, { expectedPosition: (_, t) => t.waitingAhead + 1 });
    expect(rules(v)).toEqual(['fifo: wrong position', 'fifo: inversion', 'fifo: inversion']);
    expect(v.slice(1).map((x) => x.ids.overtaken)).toEqual(['a', 'b']);
  });

  it('ignores tickets of other factories and tickets that never waited for a slot', () => {
    const history = [find(0, 'a', ['p-a'], 'f1'), queued(1, 'a', 1), find(2, 'b', ['p-b'], 'f2'), queued(3, 'b', 1), find(4, 'c', ['p-c'], 'f1'), queued(5, 'c', 0), ...seatAndTell(10, 'b'), ...seatAndTell(12, 'c'), ...seatAndTell(14, 'a')];
    expect(rules(check(history))).toEqual([]);
  });
});
