import { credentials, Metadata, type ServiceError } from '@grpc/grpc-js';
import type { MatchBatchRequest, ProposedGame } from '../../coordinator/match-functions/match-batch.js';
import type { MatchFunctionPort } from '../../coordinator/match-functions/match-function-port.js';
import { MatchFunctionClient, type ProposeGamesRequest } from '../../generated/gamefactory/v1/match_function.js';

/** How much longer a call may run than the factory's timeout (see `propose`). */
const CALL_GRACE_MS = 1_000;

/**
 * The MatchFunction port over gRPC: one client per address, made on first use (a coordinator whose
 * factories name no function makes none), each call with the factory's timeout (and a grace) as its deadline.
 */
export class GrpcMatchFunctions implements MatchFunctionPort {
  private readonly clients = new Map<string, MatchFunctionClient>();

  propose(address: string, request: MatchBatchRequest, timeoutMs: number): Promise<readonly ProposedGame[]> {
    let client = this.clients.get(address);
    if (!client) this.clients.set(address, (client = new MatchFunctionClient(address, credentials.createInsecure())));
    return new Promise((resolve, reject) => {
      // The core's own deadline (the factory's timeout, on its clock) decides a timeout and ignores a
      // late answer; the call's outlives it by a grace so a busy process does not report the same
      // timeout as a failed call.
      client.proposeGames(toWire(request), new Metadata(), { deadline: Date.now() + timeoutMs + CALL_GRACE_MS }, (error: ServiceError | null, response) => {
        if (error) return reject(new Error(`${address}: ${error.code} ${error.details}`));
        resolve(response.games.map((g) => ({ teams: g.teams.map((t) => t.ticketIds), map: g.map, region: g.region })));
      });
    });
  }

  close(): void {
    for (const client of this.clients.values()) client.close();
    this.clients.clear();
  }
}

function toWire(request: MatchBatchRequest): ProposeGamesRequest {
  return {
    factory: request.factory,
    teams: request.teams,
    teamSize: request.teamSize,
    maps: [...request.maps],
    regions: [...request.regions],
    tickets: request.tickets.map((t) => ({
      ticketId: t.ticketId,
      players: t.players.map((p) => ({ playerId: p.playerId, score: p.score })),
      waitedMs: BigInt(Math.round(t.waitedMs)),
      latenciesMs: Object.fromEntries([...t.latenciesMs].map(([region, ms]) => [region, Math.max(0, Math.min(0xffffffff, Math.round(ms)))])),
      preferredMaps: [...t.preferredMaps],
      vetoedMaps: [...t.vetoedMaps],
      softAttributes: Object.fromEntries(t.softAttributes),
    })),
  };
}
