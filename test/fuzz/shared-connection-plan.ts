import { ServerMessage } from '../../src/generated/gamefactory/v1/game_server_link.js';
import { FindGameRequest, FindGamesRequest, MatchmakerService } from '../../src/generated/gamefactory/v1/matchmaker.js';
import { GameServerLinkService } from '../../src/generated/gamefactory/v1/game_server_link.js';
import { findGameRequest } from '../support/find-game.js';

/**
 * One connection carrying hostile calls and game-server link sequences together, the same plan for
 * every client library that drives it (grpc-js here, grpcio in python/shared_connection.py): what
 * a gateway multiplexing its players, or a game server fleet behind one proxy, sends on one
 * HTTP/2 connection. A bystander game server stays linked on it throughout.
 */
export const SHARED_CONNECTION_YAML = `
limits: { rate: { findGame: { perSecond: 1000000, burst: 1000000 }, findGames: { perSecond: 1000000, burst: 1000000 }, cancelFind: { perSecond: 1000000, burst: 1000000 }, queryStats: { perSecond: 1000000, burst: 1000000 } } }
placement: { policy: fill, createTimeoutMs: 600000, maxQueuedPerFactory: 100000, ticketTtlSeconds: 300 }
servers: { keepaliveIntervalMs: 2000 }
factories:
  - name: coop
    partitioning: { region: [eu, us] }
    cooperative: { maxPlayers: 4 }
`;

export type HostileShape = 'unary' | 'server' | 'bidi';

export interface HostileCall {
  readonly path: string;
  readonly shape: HostileShape;
  /** Encoded request messages, base64. */
  readonly messages: readonly string[];
  /** Whether the client reads the answer; if not, it cancels after `cancelAfterMs`. */
  readonly read: boolean;
  readonly cancelAfterMs?: number;
  readonly deadlineMs: number;
}

export interface SharedConnectionPlan {
  readonly address: string;
  readonly linkPath: string;
  readonly matchmakerFindPath: string;
  readonly bystanderHello: string;
  readonly hostile: readonly HostileCall[];
  readonly hostileConcurrency: number;
  readonly links: readonly { readonly messages: readonly string[] }[];
  readonly linkDeadlineMs: number;
  /** A plain FindGame the bystander can serve, sent last. */
  readonly find: string;
}

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
const link = (m: ServerMessage) => b64(ServerMessage.encode(m).finish());
const hello = (serverId: string, region: string, maxGames: number): ServerMessage => ({
  event: { $case: 'hello', value: { serverId, endpoint: `${serverId}.example:7777`, attributes: { region: { kind: { $case: 'stringValue', value: region } } }, templates: [], capacity: { maxGames, maxStartsPerSecond: 0 }, runningGames: [], pendingCreations: [] } },
});

/**
 * `hostile` calls of six kinds in turn (undecodable bytes on each Matchmaker method, an oversize
 * request, a find left unread and cancelled, a find for a region nobody hosts), then `links` link
 * sequences (most well-formed, every fourth out of order). Finds for `us` wait: its host never starts a game.
 */
export function sharedConnectionPlan(address: string, { hostile, links }: { hostile: number; links: number }): SharedConnectionPlan {
  const find = (ticketId: string, region: string) => b64(FindGameRequest.encode(findGameRequest({ ticketId, template: 'coop', party: [`p-${ticketId}`], partition: { region } })).finish());
  const garbage = b64(Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]));
  const oversize = b64(Buffer.alloc(1_200_000, 0x61));
  const calls: HostileCall[] = [];
  for (let i = 0; i < hostile; i++) {
    const deadlineMs = 10_000;
    switch (i % 6) {
      case 0:
        calls.push({ path: MatchmakerService.findGame.path, shape: 'server', messages: [garbage], read: true, deadlineMs });
        break;
      case 1:
        calls.push({ path: MatchmakerService.cancelFind.path, shape: 'unary', messages: [garbage], read: true, deadlineMs });
        break;
      case 2:
        calls.push({ path: MatchmakerService.findGame.path, shape: 'server', messages: [oversize], read: true, deadlineMs });
        break;
      case 3:
        calls.push({ path: MatchmakerService.findGame.path, shape: 'server', messages: [find(`unread-${i}`, 'us')], read: false, cancelAfterMs: 20, deadlineMs });
        break;
      case 4:
        calls.push({ path: MatchmakerService.findGames.path, shape: 'bidi', messages: [b64(FindGamesRequest.encode({ request: { $case: 'find', value: FindGameRequest.decode(Buffer.from(find(`many-${i}`, 'us'), 'base64')) } }).finish()), garbage], read: true, deadlineMs });
        break;
      default:
        calls.push({ path: MatchmakerService.queryStats.path, shape: 'unary', messages: [garbage], read: true, deadlineMs });
    }
  }
  const sequences = Array.from({ length: links }, (_, i) => {
    const serverId = `linked-${i}`;
    if (i % 4 === 3) {
      // Out of order: a report before the hello (refused with a status, the stream ends).
      return { messages: [link({ event: { $case: 'gameEnded', value: { gameId: 'nope' } } }), link(hello(serverId, 'eu', 1))] };
    }
    return { messages: [link(hello(serverId, 'eu', 1)), link({ event: { $case: 'capacityChanged', value: { capacity: { maxGames: 2, maxStartsPerSecond: 0 } } } })] };
  });
  return {
    address,
    linkPath: GameServerLinkService.connect.path,
    matchmakerFindPath: MatchmakerService.findGame.path,
    bystanderHello: link(hello('bystander', 'eu', 1000)),
    hostile: calls,
    hostileConcurrency: 64,
    links: sequences,
    linkDeadlineMs: 20_000,
    find: find('after-all', 'eu'),
  };
}
