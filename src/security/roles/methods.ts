import { AdminService } from '../../generated/gamefactory/v1/admin.js';
import { GameServerLinkService } from '../../generated/gamefactory/v1/game_server_link.js';
import { MatchmakerService } from '../../generated/gamefactory/v1/matchmaker.js';
import { RatingsService } from '../../generated/gamefactory/v1/ratings.js';

/** The secured RPCs by short name; `Drain` is the admin call the drain work adds (path not final). */
export type SecuredMethod =
  | 'Connect'
  | 'FindGame'
  | 'FindGames'
  | 'CancelFind'
  | 'RespondToMatch'
  | 'QueryStats'
  | 'Drain'
  | 'ReloadConfig'
  | 'GetRating'
  | 'Leaderboard'
  | 'PlayerRank';

const BY_PATH = new Map<string, SecuredMethod>([
  [GameServerLinkService.connect.path, 'Connect'],
  [MatchmakerService.findGame.path, 'FindGame'],
  [MatchmakerService.findGames.path, 'FindGames'],
  [MatchmakerService.cancelFind.path, 'CancelFind'],
  [MatchmakerService.respondToMatch.path, 'RespondToMatch'],
  [MatchmakerService.queryStats.path, 'QueryStats'],
  [AdminService.reloadConfig.path, 'ReloadConfig'],
  [RatingsService.getRating.path, 'GetRating'],
  [RatingsService.leaderboard.path, 'Leaderboard'],
  [RatingsService.playerRank.path, 'PlayerRank'],
]);

/** Health checks must answer load balancers and orchestrators that hold no credentials. */
const PUBLIC_PATHS = new Set(['/grpc.health.v1.Health/Check', '/grpc.health.v1.Health/Watch', '/grpc.health.v1.Health/List']);

/** Server reflection describes the whole API: admins only (and everyone in insecure mode). */
const ADMIN_PATHS = new Set([
  '/grpc.reflection.v1.ServerReflection/ServerReflectionInfo',
  '/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo',
]);

export type MethodClass = { kind: 'secured'; method: SecuredMethod } | { kind: 'public' } | { kind: 'adminOnly' } | { kind: 'unknown' };

export function classifyPath(path: string, drainPath?: string): MethodClass {
  const method = BY_PATH.get(path) ?? (drainPath !== undefined && path === drainPath ? 'Drain' : undefined);
  if (method) return { kind: 'secured', method };
  if (PUBLIC_PATHS.has(path)) return { kind: 'public' };
  if (ADMIN_PATHS.has(path)) return { kind: 'adminOnly' };
  return { kind: 'unknown' };
}
