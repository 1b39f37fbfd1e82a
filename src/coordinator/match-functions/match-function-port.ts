import type { MatchBatchRequest, ProposedGame } from './match-batch.js';

/**
 * How the edge asks a factory's match function for games: one call per batch, answered within
 * `timeoutMs` or failed. The gRPC adapter is src/transport/grpc/match-function-client.ts; tests may
 * pass any implementation.
 */
export interface MatchFunctionPort {
  propose(address: string, request: MatchBatchRequest, timeoutMs: number): Promise<readonly ProposedGame[]>;
  close(): void;
}
