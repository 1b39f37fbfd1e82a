import { describe, expect, it } from 'vitest';
import { releasedAfterCommit } from '../../src/redis/shards/player-claims.js';

/** What a shard core's releases give back of the cluster's claims, once their commit is written. */
describe('releasedAfterCommit', () => {
  const setUp = (waiting: Map<string, readonly string[]>) => {
    const told: (() => void)[] = [];
    const released: { ticketId: string; shard: number; players: readonly string[]; keepId: boolean | undefined }[] = [];
    const claims = releasedAfterCommit(
      { deliver: (run) => void told.push(run) },
      { release: async (ticketId, shard, players, keepId) => void released.push({ ticketId, shard, players, keepId }) },
      7,
      () => undefined,
      (ticketId) => waiting.get(ticketId),
    );
    return { claims, released, commit: () => told.splice(0).forEach((run) => run()) };
  };

  it('gives back a ticket that ended, players and id, only once its commit is written', () => {
    const { claims, released, commit } = setUp(new Map());
    claims.claim('t', ['alice', 'bob']);
    claims.release('t', ['alice', 'bob']);
    expect(released).toEqual([]);
    commit();
    expect(released).toEqual([{ ticketId: 't', shard: 7, players: ['alice', 'bob'], keepId: false }]);
  });

  it("keeps what a ticket waiting under the id holds when it goes out: a refused namesake's players go, the id stays; a ticket found again keeps its own", () => {
    const waiting = new Map<string, readonly string[]>([['t', ['alice']]]);
    const { claims, released, commit } = setUp(waiting);
    // Mallory under alice's waiting ticket's id, refused by the core: her players, not the id.
    claims.release('t', ['mallory']);
    // Alice's ticket ended, and was found again under the same id before this release went out.
    claims.release('t', ['alice']);
    commit();
    expect(released).toEqual([
      { ticketId: 't', shard: 7, players: ['mallory'], keepId: true },
      { ticketId: 't', shard: 7, players: [], keepId: true },
    ]);
  });
});
