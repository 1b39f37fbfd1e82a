import { describe, expect, it } from 'vitest';
import { FindError, status, Ticket, type TicketUpdate } from '@gamefactory/matchmaking-client';

const assignment = { gameId: 'g', serverEndpoint: 'h:1', factory: 'f', reservationToken: 't', serverId: 's', created: true, map: '', region: '', team: 0, seatTokens: {} };

/** A ticket read three ways: the assignment promise, an async iterator, events. */
describe('Ticket', () => {
  it('an iterator started late still sees every update, and ends at the assignment', async () => {
    const { ticket, sink } = Ticket.open('t1', async () => false);
    sink.queued({ kind: 'queued', factory: 'f', position: 2, estimatedWaitMs: 100 });
    const seen: TicketUpdate['kind'][] = [];
    const reading = (async () => {
      for await (const update of ticket) seen.push(update.kind);
    })();
    sink.resuming({ kind: 'resuming', address: 'b:1', delayMs: 10, reason: 'node lost' });
    sink.assigned(assignment);
    sink.queued({ kind: 'queued', factory: 'f', position: 1, estimatedWaitMs: 0 }); // after settling: ignored
    await reading;
    expect(seen).toEqual(['queued', 'resuming', 'assignment']);
    await expect(ticket.assignment).resolves.toEqual(assignment);
    expect(ticket.settled).toBe(true);
  });

  it('a failure rejects the promise, throws from the iterator and is an event, never an unhandled rejection', async () => {
    const { ticket, sink } = Ticket.open('t2', async () => false);
    const events: string[] = [];
    ticket.on('failed', (e) => events.push(e.message));
    sink.failed(new FindError('t2', status.FAILED_PRECONDITION, 'no server'));
    await expect(ticket.assignment).rejects.toMatchObject({ code: status.FAILED_PRECONDITION, ticketId: 't2' });
    await expect((async () => { for await (const _ of ticket); })()).rejects.toBeInstanceOf(FindError);
    expect(events).toEqual(['ticket t2: FAILED_PRECONDITION: no server']);
  });

  it('two readers of one ticket both see it through', async () => {
    const { ticket, sink } = Ticket.open('t4', async () => false);
    const read = async () => {
      const kinds: string[] = [];
      for await (const update of ticket) kinds.push(update.kind);
      return kinds;
    };
    const both = Promise.all([read(), read()]);
    await Promise.resolve();
    sink.queued({ kind: 'queued', factory: 'f', position: 0, estimatedWaitMs: 0 });
    sink.assigned(assignment);
    expect(await both).toEqual([
      ['queued', 'assignment'],
      ['queued', 'assignment'],
    ]);
  });

  it('cancel on a settled ticket answers false without asking anyone', async () => {
    let asked = 0;
    const { ticket, sink } = Ticket.open('t3', async () => ++asked > 0);
    sink.assigned(assignment);
    expect(await ticket.cancel()).toBe(false);
    expect(asked).toBe(0);
  });
});
