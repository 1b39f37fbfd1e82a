import { describe, expect, it } from 'vitest';
import type { FindRequest } from '../../src/coordinator/messages.js';
import { MatchmakingError } from '../../src/errors/index.js';
import type { Principal } from '../../src/security/tokens/principal.js';
import { ManualTimers } from '../coordinator/fixture.js';
import { FakeRelay } from './fake-relay.js';
import { InProcessNode, LEASE_MS, Player, Server, settle, SOLO_CONFIG as CONFIG } from './in-process-cluster.js';

/**
 * A cluster node answers ownership questions as one node does: only a ticket's owner cancels or
 * resumes it, a ticket id names one request, and the owner forgets a call once it is answered.
 */

const player = (id: string): Principal => ({ role: 'player', subject: id, playerIds: [id] });

function cluster() {
  const timers = new ManualTimers();
  const relay = new FakeRelay(() => timers.now);
  const [a, b, c] = ['a', 'b', 'c'].map((id) => InProcessNode.make(id, relay, timers, CONFIG)) as [InProcessNode, InProcessNode, InProcessNode];
  return { timers, relay, a, b, c, all: [a, b, c] };
}

/** A find by player `playerId` under `ticketId`, sent with that player's principal. */
function findAs(p: Player, playerId: string): FindRequest {
  return { ...p.request(), party: [{ playerId, score: undefined }], caller: player(playerId) };
}

/** A server with one slot connects to `node` and creates the game it is ordered: the waiting ticket's. */
async function gameOn(node: InProcessNode, nodes: readonly InProcessNode[]): Promise<void> {
  const server = new Server('s', 1);
  server.connect(node);
  await settle(nodes);
  server.confirmAll();
  await settle(nodes);
}

async function settledCancel(nodes: readonly InProcessNode[], cancel: boolean | Promise<boolean>): Promise<boolean> {
  const result = Promise.resolve(cancel);
  await settle(nodes);
  return result;
}

describe('ownership through a cluster node', () => {
  it("CancelFind of another player's waiting ticket is PERMISSION_DENIED, and the ticket goes on", async () => {
    const { a, b, c, all } = cluster();
    await a.seat.keepLease();
    const alice = new Player('t-alice');
    b.gateway.find(findAs(alice, 'alice'), alice);
    await settle(all);
    expect(alice.updates.at(-1)).toMatchObject({ kind: 'queued' });

    const denied = await settledCancel(all, c.gateway.cancel('t-alice', player('mallory'))).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(denied).toBeInstanceOf(MatchmakingError);
    expect((denied as MatchmakingError).code).toBe('PERMISSION_DENIED');
    expect(alice.errors).toEqual([]);

    // Its owner may, through any node.
    expect(await settledCancel(all, c.gateway.cancel('t-alice', player('alice')))).toBe(true);
    expect(alice.errors.map((e) => e.code)).toEqual(['CANCELLED']);
    // And a ticket nobody waits on is not cancelled.
    expect(await settledCancel(all, c.gateway.cancel('t-none', player('alice')))).toBe(false);
  });

  it("FindGame with another player's ticket id and a different party is refused, while it waits and once it is assigned", async () => {
    const { a, b, c, all } = cluster();
    await a.seat.keepLease();
    const alice = new Player('t-alice');
    b.gateway.find(findAs(alice, 'alice'), alice);
    await settle(all);

    const waitingThief = new Player('t-alice');
    c.gateway.find(findAs(waitingThief, 'mallory'), waitingThief);
    await settle(all);
    expect(waitingThief.errors.map((e) => e.code)).toEqual(['ALREADY_EXISTS']);
    expect(waitingThief.assignments).toEqual([]);

    await gameOn(a, all);
    expect(alice.assignments).toHaveLength(1);

    // The assignment is kept for a client resuming on another node: not for another party.
    const thief = new Player('t-alice');
    c.gateway.find(findAs(thief, 'mallory'), thief);
    await settle(all);
    expect(thief.assignments).toEqual([]);
    expect(thief.errors.map((e) => e.code)).toEqual(['ALREADY_EXISTS']);
    // Nor for the same party sent by someone else.
    const impostor = new Player('t-alice');
    c.gateway.find({ ...findAs(impostor, 'alice'), caller: player('mallory') }, impostor);
    await settle(all);
    expect(impostor.assignments).toEqual([]);
    expect(impostor.errors.map((e) => e.code)).toEqual(['PERMISSION_DENIED']);
    // Its owner, resuming on another node, gets it.
    const resumed = new Player('t-alice');
    c.gateway.find(findAs(resumed, 'alice'), resumed);
    await settle(all);
    expect(resumed.assignments.map((x) => x.gameId)).toEqual(alice.assignments.map((x) => x.gameId));
  });

  it('a second call for a ticket on the node that holds its first: another request is refused at once and the first call keeps its answers; the same request takes over', async () => {
    const { a, b, all } = cluster();
    await a.seat.keepLease();
    const alice = new Player('t-alice');
    b.gateway.find(findAs(alice, 'alice'), alice);
    await settle(all);
    expect(alice.updates.map((u) => u.kind)).toEqual(['queued']);

    // Another party, or the same party sent by someone else: refused before it reaches the owner.
    const thief = new Player('t-alice');
    expect(() => b.gateway.find(findAs(thief, 'mallory'), thief)).toThrow(expect.objectContaining({ code: 'ALREADY_EXISTS' }));
    const impostor = new Player('t-alice');
    expect(() => b.gateway.find({ ...findAs(impostor, 'alice'), caller: player('mallory') }, impostor)).toThrow(expect.objectContaining({ code: 'PERMISSION_DENIED' }));

    // The first call still holds the ticket: its game comes to it, and to nobody else.
    await gameOn(a, all);
    expect(alice.assignments).toHaveLength(1);
    expect([...thief.updates, ...impostor.updates]).toEqual([]);

    // Its owner's same request on a new call (a client that reconnected) takes the ticket over, and
    // the earlier call is told, as on one node.
    const bob = new Player('t-bob');
    b.gateway.find(findAs(bob, 'bob'), bob);
    await settle(all);
    const again = new Player('t-bob');
    b.gateway.find(findAs(again, 'bob'), again);
    await settle(all);
    expect(bob.errors.map((e) => [e.code, e.message])).toEqual([['CANCELLED', 'ticket "t-bob" was resumed by another call']]);
    expect(again.updates.map((u) => u.kind)).toEqual(['queued']);
    expect(again.errors).toEqual([]);
  });

  it("a refused find from another node leaves the owner's call in place: its abandon still cancels", async () => {
    const { a, b, c, all } = cluster();
    await a.seat.keepLease();
    const alice = new Player('t-alice');
    b.gateway.find(findAs(alice, 'alice'), alice);
    await settle(all);
    const thief = new Player('t-alice');
    c.gateway.find(findAs(thief, 'mallory'), thief);
    await settle(all);
    b.gateway.abandon('t-alice', alice);
    await settle(all);
    expect(a.core!.view.ticket('t-alice')).toBeUndefined();
  });

  it('the owner forgets each call once it is answered: assigned, cancelled, abandoned or refused', async () => {
    const { a, b, all } = cluster();
    await a.seat.keepLease();
    const server = new Server('s', 20);
    server.connect(a);
    await settle(all);
    const players = Array.from({ length: 20 }, (_, i) => new Player(`t${i}`));
    for (const p of players.slice(0, 10)) b.gateway.find(findAs(p, `p${p.ticketId}`), p);
    await settle(all);
    server.confirmAll();
    await settle(all);
    expect(players.slice(0, 10).every((p) => p.assignments.length === 1)).toBe(true);
    server.maxGames = 0;
    server.connect(a); // no free slot now: the next ones wait
    await settle(all);
    for (const p of players.slice(10)) b.gateway.find(findAs(p, `p${p.ticketId}`), p);
    await settle(all);
    for (const p of players.slice(10, 15)) await settledCancel(all, b.gateway.cancel(p.ticketId, player(`p${p.ticketId}`)));
    for (const p of players.slice(15)) b.gateway.abandon(p.ticketId, p);
    await settle(all);
    expect(a.seat.callsHeld).toBe(0);
  });
});

describe('failover', () => {
  it('a find for a factory whose servers are gone with a dead node answers UNAVAILABLE with a retry hint, never FAILED_PRECONDITION', async () => {
    const { timers, a, b, c, all } = cluster();
    await a.seat.keepLease();
    await b.gateway.watchOwner();
    const server = new Server('s', 5);
    server.connect(c);
    await settle(all);
    // c (holding the server's stream) and a (the owner) are paused; b takes over. The server's
    // stream is stuck on c: it reconnects only when its keepalive gives up.
    await timers.advance(LEASE_MS + 1);
    await b.seat.keepLease();
    expect(b.seat.owner).toBe(true);
    for (let i = 0; i < 9; i++) {
      // past the new owner's wait for servers, renewing its lease
      await timers.advance(LEASE_MS / 3);
      await b.seat.keepLease();
    }
    const p = new Player('t1');
    b.gateway.find(p.request(), p);
    await settle([b]);
    expect(b.seat.owner).toBe(true);
    expect(p.errors.map((e) => e.code)).toEqual(['UNAVAILABLE']);
    expect(p.errors[0]!.retryAfterMs).toBeGreaterThan(0);
    // Servers that never come back: once they have had time to reconnect, the refusal is final again.
    for (let i = 0; i < 24; i++) {
      await timers.advance(LEASE_MS / 3);
      await b.seat.keepLease();
    }
    const late = new Player('t2');
    b.gateway.find(late.request(), late);
    await settle([b]);
    expect(late.errors.map((e) => e.code)).toEqual(['FAILED_PRECONDITION']);
  });
});
