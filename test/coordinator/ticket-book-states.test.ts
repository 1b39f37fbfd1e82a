import { describe, expect, it } from 'vitest';
import type { CoreContext } from '../../src/coordinator/core-context.js';
import type { FindRequest, TicketListener } from '../../src/coordinator/messages.js';
import { TicketBook } from '../../src/coordinator/tickets/ticket-book.js';

// The book alone: only its effects log is used by these moves.
const ctx = { out: { push: () => {} } } as unknown as CoreContext;
const listener: TicketListener = { update: () => {}, fail: () => {} };

function open(book: TicketBook, id: string, arrival: number): void {
  const request = { ticketId: id, party: [{ playerId: `p-${id}`, score: undefined }] } as unknown as FindRequest;
  book.open({ id, request, factory: 'coop', createdAt: 0, arrival, owner: undefined }, 'pooled', listener, false);
}

describe('TicketBook tickets', () => {
  it("read their players from the request's party, in party order, each read a list of its own", () => {
    const book = new TicketBook(ctx);
    const request = { ticketId: 't', party: [{ playerId: 'b', score: 3 }, { playerId: 'a', score: undefined }] } as unknown as FindRequest;
    const ticket = book.open({ id: 't', request, factory: 'coop', createdAt: 0, arrival: 1, owner: undefined }, 'pooled', listener, false);
    expect(ticket.playerIds).toEqual(['b', 'a']);
    expect(book.get('t')!.playerIds).not.toBe(ticket.playerIds); // no list kept: the party is the record
  });
});

describe('TicketBook placing states', () => {
  it('gives the tickets of one creation one state object, riders of several creations arriving interleaved', () => {
    const book = new TicketBook(ctx);
    ['t1', 't2', 't3', 't4', 't5'].forEach((id, i) => open(book, id, i + 1));
    // Riders of creations A and B arrive in turn, each joined then told its creation's place.
    book.place('t1', 'A');
    book.queued('t1', 'A', 1);
    book.place('t2', 'B');
    book.queued('t2', 'B', 2);
    book.place('t3', 'A');
    expect(book.get('t3')!.state).toEqual({ kind: 'placing', creationId: 'A', position: undefined });
    book.queued('t3', 'A', 1);
    book.place('t4', 'B');
    book.queued('t4', 'B', 2);
    const [s1, s2, s3, s4] = ['t1', 't2', 't3', 't4'].map((id) => book.get(id)!.state);
    expect(s1).toEqual({ kind: 'placing', creationId: 'A', position: 1 });
    expect(s3).toBe(s1);
    expect(s4).toBe(s2);
    expect(s2).toEqual({ kind: 'placing', creationId: 'B', position: 2 });
    // The line moves: a new position is a new state, shared again by the creation's tickets.
    book.queued('t1', 'A', 0);
    book.queued('t3', 'A', 0);
    expect(book.get('t1')!.state).toEqual({ kind: 'placing', creationId: 'A', position: 0 });
    expect(book.get('t3')!.state).toBe(book.get('t1')!.state);
    expect(book.countsByState()).toEqual({ parked: 0, pooled: 1, proposed: 0, placing: 4, assigned: 0 });
  });
});
