import { ServerMessage } from '../../src/generated/gamefactory/v1/game_server_link.js';
import { FindGamesRequest } from '../../src/generated/gamefactory/v1/matchmaker.js';
import { findGameRequest } from '../support/find-game.js';
import { frame } from './raw-http2.js';

/** A coordinator whose limits only the stream under test can reach: no rate limit, a small unread bound. */
export const REFUSED_STREAMS_YAML = `
limits: { rate: { findGames: { perSecond: 1000000, burst: 1000000 } }, maxUnreadBytesPerStream: 65536 }
placement: { policy: fill, createTimeoutMs: 600000, maxQueuedPerFactory: 100000, ticketTtlSeconds: 300 }
factories:
  - name: coop
    partitioning: { region: [eu] }
    cooperative: { maxPlayers: 4 }
`;

/** One find of the coop factory, framed for a raw FindGames stream. */
export const findFrame = (ticketId: string) =>
  frame(FindGamesRequest.encode({ request: { $case: 'find', value: findGameRequest({ ticketId, template: 'coop', party: [`p-${ticketId}`], partition: { region: 'eu' } }) } }).finish());

/** A valid find of ~1.2 MB, over maxMessageBytes (1 MiB) but under grpc-js's own backstop. */
export const oversizeFrame = (ticketId: string) =>
  frame(
    FindGamesRequest.encode({
      request: { $case: 'find', value: { ...findGameRequest({ ticketId, template: 'coop', party: ['big'], partition: { region: 'eu' } }), vetoedMaps: Array.from({ length: 1200 }, (_, i) => `${i}`.padEnd(1000, 'v')) } },
    }).finish(),
  );

/** A game server's hello with room for one game, framed for a raw GameServerLink stream. */
export const helloFrame = (serverId: string) =>
  frame(ServerMessage.encode({ event: { $case: 'hello', value: { serverId, endpoint: `${serverId}:1`, attributes: {}, templates: [], capacity: { maxGames: 1, maxStartsPerSecond: 0 }, runningGames: [], pendingCreations: [] } } }).finish());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until `check` holds; the test's own timeout bounds it. */
export const until = async (check: () => boolean) => {
  while (!check()) await sleep(20);
};
