import { status } from '@grpc/grpc-js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GameServerLinkService, ServerMessage } from '../../src/generated/gamefactory/v1/game_server_link.js';
import { MatchmakerService } from '../../src/generated/gamefactory/v1/matchmaker.js';
import { TestCoordinator } from '../integration/harness.js';
import { frame, RawGrpcConnection, write } from './raw-http2.js';
import { findFrame as find, oversizeFrame as oversize, REFUSED_STREAMS_YAML as YAML, helloFrame as hello, until } from './refused-streams-fixture.js';

/**
 * The shape of the attack that stalled GameServerLink writes: a few hundred FindGames calls on one
 * HTTP/2 connection, each a valid find, a message over maxMessageBytes and a small find, then game
 * servers linking on that same connection. Its own file, so that nothing else runs in the process
 * that tore down those sessions (see the note at its end and docs/known-limits.md).
 */

describe('refused FindGames streams and the GameServerLink streams beside them on one connection', () => {
  let coordinator: TestCoordinator;
  beforeEach(async () => {
    coordinator = await TestCoordinator.start(YAML);
    await coordinator.server({ serverId: 's1', maxGames: 1 }, { decide: () => 'ignore' });
  });
  afterEach(() => coordinator.stop());

  it('after 200 FindGames streams that each send a find, a message over maxMessageBytes and a small find, 37 GameServerLink streams on the same connection are read at once', async () => {
    const connection = new RawGrpcConnection(coordinator.address);
    const view = coordinator.running.coordinator.view;
    try {
      // Half of them read their replies, half never do: the shapes the attack used.
      const refused = Array.from({ length: 200 }, (_, i) => {
        const call = connection.open(MatchmakerService.findGames.path, { read: i % 2 === 0 });
        void write(call.stream, find(`m${i}`))
          .then(() => write(call.stream, oversize(`mbig${i}`)))
          .then(() => write(call.stream, find(`mafter${i}`)));
        return call;
      });
      // Then the game servers, on the same connection while those are still being refused.
      const capacity = frame(ServerMessage.encode({ event: { $case: 'capacityChanged', value: { capacity: { maxGames: 1, maxStartsPerSecond: 0 } } } }).finish());
      const links = Array.from({ length: 37 }, (_, i) => {
        const link = connection.open(GameServerLinkService.connect.path, { read: true });
        const writes = write(link.stream, hello(`gs${i}`)).then(async (ok) => {
          for (let n = 0; ok && n < 20; n++) ok = await write(link.stream, capacity);
          return ok;
        });
        return { link, writes };
      });
      // Every write of every link is taken (a stalled window would leave them pending: the test times out) ...
      expect(await Promise.all(links.map((l) => l.writes))).toEqual(links.map(() => true));
      // ... and the coordinator has read them: all 37 servers are linked.
      await until(() => links.every((_, i) => view.servers().some((s) => s.serverId === `gs${i}`)));
      // The refused streams each ended with their status, read or not.
      for (const call of refused) call.stream.resume();
      const ends = await Promise.all(refused.map((c) => c.ended));
      for (const end of ends) {
        if (end.grpcStatus !== undefined) expect(end).toMatchObject({ grpcStatus: status.RESOURCE_EXHAUSTED });
        else expect(end.rstCode).toBe(11);
      }
      for (let i = 0; i < refused.length; i++) expect(view.ticket(`mafter${i}`)).toBeUndefined();
      for (const { link } of links) link.stream.close();
    } finally {
      // Closed gracefully, every stream ended first: destroying this session with megabytes of
      // writes still queued and then stopping the coordinator aborted the test process about one
      // run in two (glibc "corrupted size vs. prev_size" inside Node's http2; client and server
      // share this process, so which side is not known). docs/known-limits.md.
      await new Promise<void>((resolve) => {
        connection.session.close(() => resolve());
        setTimeout(resolve, 5000).unref();
      });
      connection.close();
    }
  }, 60_000);
});
