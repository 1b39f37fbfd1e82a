import type { ServiceError } from '@grpc/grpc-js';
import type { Assignment, FindGameRequest, FindGameUpdate, MatchmakerClient, Queued } from '../../src/generated/gamefactory/v1/matchmaker.js';
import { wireFindRequest, type FindRequest } from '../../packages/matchmaking-client/src/find-request.js';

/**
 * FindGame over the bare generated contract, for tests of the coordinator's own answers: they see
 * the exact gRPC status, with no resume or retry in between. Clients of the product use
 * @gamefactory/matchmaking-client (test/packages).
 */
export type FindOptions = FindRequest & { readonly ticketId: string };

export function findGameRequest(options: FindOptions): FindGameRequest {
  return wireFindRequest(options.ticketId, options);
}

export interface FindResult {
  readonly assignment: Assignment;
  readonly queued: readonly Queued[];
}

/** FindGame until the assignment arrives; rejects with the gRPC error. */
export function findGame(client: MatchmakerClient, options: FindOptions, signal?: AbortSignal): Promise<FindResult> {
  return new Promise((resolve, reject) => {
    const call = client.findGame(findGameRequest(options));
    const queued: Queued[] = [];
    let assignment: Assignment | undefined;
    signal?.addEventListener('abort', () => call.cancel(), { once: true });
    call.on('data', (update: FindGameUpdate) => {
      if (update.update?.$case === 'queued') queued.push(update.update.value);
      if (update.update?.$case === 'assignment') assignment = update.update.value;
    });
    call.on('error', (error: ServiceError) => reject(error));
    call.on('end', () =>
      assignment ? resolve({ assignment, queued }) : reject(new Error(`ticket ${options.ticketId}: stream ended without an assignment`)),
    );
  });
}
