import { status } from '@grpc/grpc-js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GameServerLinkService, ServerMessage } from '../../src/generated/gamefactory/v1/game_server_link.js';
import { MatchmakerService } from '../../src/generated/gamefactory/v1/matchmaker.js';
import { TestCoordinator } from '../integration/harness.js';
import { frame, RawGrpcConnection, write } from './raw-http2.js';
import { findFrame as find, oversizeFrame as oversize, REFUSED_STREAMS_YAML as YAML, helloFrame as hello, until } from './refused-streams-fixture.js';

/**
 * Streams that are refused or whose peer stops reading end with a status at once, their memory
 * is freed, and nothing they sent holds the HTTP/2 connection they share: raw HTTP/2 clients
 * (node:http2) that stop reading, several streams on one connection.
 */

describe('refused streams and peers that stop reading, on shared HTTP/2 connections', () => {
  let coordinator: TestCoordinator;
  beforeEach(async () => {
    coordinator = await TestCoordinator.start(YAML);
    await coordinator.server({ serverId: 's1', maxGames: 1 }, { decide: () => 'ignore' });
  });
  afterEach(() => coordinator.stop());

  it('FindGames streams that send a message over maxMessageBytes end with RESOURCE_EXHAUSTED at once, and a neighbour on the same connection is served', async () => {
    const connection = new RawGrpcConnection(coordinator.address);
    try {
      // Many streams, each a valid find, an oversize one, then a small one, none reading its replies.
      const refused = Array.from({ length: 40 }, (_, i) => {
        const call = connection.open(MatchmakerService.findGames.path, { read: false });
        void write(call.stream, find(`r${i}`))
          .then(() => write(call.stream, oversize(`big${i}`)))
          .then(() => write(call.stream, find(`after${i}`)));
        return call;
      });
      // The server ends each stream on its own (the client still reads nothing): the refused
      // finds' earlier tickets are abandoned, the later ones never become tickets.
      await until(() => refused.every((_, i) => coordinator.running.coordinator.view.ticket(`r${i}`) === undefined));
      for (let i = 0; i < refused.length; i++) expect(coordinator.running.coordinator.view.ticket(`after${i}`)).toBeUndefined();
      // Reading now, each sees the status (or, had the status been stuck behind unread replies, the reset that stands for it).
      for (const call of refused) call.stream.resume();
      const ends = await Promise.all(refused.map((c) => c.ended));
      for (const end of ends) {
        if (end.grpcStatus !== undefined) expect(end).toMatchObject({ grpcStatus: status.RESOURCE_EXHAUSTED, grpcMessage: expect.stringMatching(/^limit maxMessageBytes: a message of \d+ bytes exceeds 1048576$/) });
        else expect(end.rstCode).toBe(11); // ENHANCE_YOUR_CALM: grpc clients report RESOURCE_EXHAUSTED
      }
      // The neighbour: its find is answered over the same connection.
      const healthy = connection.open(MatchmakerService.findGames.path, { read: true });
      expect(await write(healthy.stream, find('healthy'))).toBe(true);
      await until(() => coordinator.running.coordinator.view.ticket('healthy') !== undefined && healthy.received() > 0);
      healthy.stream.close();
    } finally {
      connection.close();
    }
  });

  it('a game server that stops reading while it keeps sending is ended at maxUnreadBytesPerStream, and a server beside it on the same connection keeps its link', async () => {
    const connection = new RawGrpcConnection(coordinator.address);
    const badReport = (i: number) => frame(ServerMessage.encode({ event: { $case: 'playerJoined', value: { gameId: `no-such-game-${i}`, playerId: `p${i}` } } }).finish());
    try {
      const neighbour = connection.open(GameServerLinkService.connect.path, { read: true });
      await write(neighbour.stream, hello('neighbour'));
      const deaf = connection.open(GameServerLinkService.connect.path, { read: false });
      await write(deaf.stream, hello('deaf'));
      await until(() => coordinator.running.coordinator.view.servers().some((s) => s.serverId === 'deaf'));
      // Each bad report is answered with a rejection the server never reads: ~100 bytes each.
      const batch = Buffer.concat(Array.from({ length: 500 }, (_, i) => badReport(i)));
      for (let sent = 0; sent < 40 && coordinator.running.coordinator.view.servers().some((s) => s.serverId === 'deaf'); sent++) {
        if (!(await write(deaf.stream, batch))) break;
      }
      await until(() => !coordinator.running.coordinator.view.servers().some((s) => s.serverId === 'deaf'));
      expect(coordinator.running.coordinator.view.servers().some((s) => s.serverId === 'neighbour')).toBe(true);
      deaf.stream.resume();
      const end = await deaf.ended;
      if (end.grpcStatus !== undefined) expect(end).toMatchObject({ grpcStatus: status.RESOURCE_EXHAUSTED, grpcMessage: expect.stringMatching(/^limit maxUnreadBytesPerStream: /) });
      else expect(end.rstCode).toBe(11);
      // The neighbour still gets its orders: a keepalive-free check, its stream is open and it can say more.
      expect(await write(neighbour.stream, badReport(0))).toBe(true);
      await until(() => neighbour.received() > 0);
      neighbour.stream.close();
    } finally {
      connection.close();
    }
  });
});
