import { Server, ServerCredentials, status, type sendUnaryData, type ServerUnaryCall } from '@grpc/grpc-js';
import { MatchFunctionService, type ProposeGamesRequest, type ProposeGamesResponse, type ProposedGame } from '@gamefactory/protocol/v1/match_function';
import { proposeGames } from './propose-games.js';

export interface MatchFunctionOptions {
  /** host:port to listen on; port 0 picks a free one. */
  readonly listen: string;
  /** The match logic; the example's own by default. May be asynchronous. */
  readonly propose?: (request: ProposeGamesRequest) => readonly ProposedGame[] | Promise<readonly ProposedGame[]>;
}

export interface RunningMatchFunction {
  readonly port: number;
  stop(): Promise<void>;
}

/** Serves gamefactory.v1.MatchFunction (plaintext gRPC) with `propose` as its logic. */
export async function startMatchFunction(options: MatchFunctionOptions): Promise<RunningMatchFunction> {
  const propose = options.propose ?? proposeGames;
  const server = new Server();
  server.addService(MatchFunctionService, {
    proposeGames(call: ServerUnaryCall<ProposeGamesRequest, ProposeGamesResponse>, callback: sendUnaryData<ProposeGamesResponse>) {
      Promise.resolve()
        .then(() => propose(call.request))
        .then(
          (games) => callback(null, { games: [...games] }),
          (error: unknown) => callback({ code: status.INTERNAL, details: error instanceof Error ? error.message : String(error) }),
        );
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(options.listen, ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
  );
  return {
    port,
    stop: () => new Promise<void>((resolve) => server.tryShutdown(() => resolve())),
  };
}
