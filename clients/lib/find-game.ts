import type { ServiceError } from '@grpc/grpc-js';
import type {
  Assignment,
  FindGameRequest,
  FindGameUpdate,
  MatchmakerClient,
  Queued,
} from '../../src/generated/gamefactory/v1/matchmaker.js';
import { wireAttributes, type PlainValue } from './wire-attributes.js';

export interface FindOptions {
  readonly ticketId: string;
  readonly template?: string;
  readonly party: readonly (string | { playerId: string; score?: number })[];
  readonly partition?: Record<string, PlainValue>;
  readonly matchable?: Record<string, PlainValue>;
  readonly latenciesMs?: Record<string, number>;
  readonly preferredMaps?: readonly string[];
  readonly vetoedMaps?: readonly string[];
}

export function findGameRequest(options: FindOptions): FindGameRequest {
  return {
    ticketId: options.ticketId,
    template: options.template ?? '',
    party: options.party.map((p) => (typeof p === 'string' ? { playerId: p } : { playerId: p.playerId, score: p.score })),
    partitionAttributes: wireAttributes(options.partition),
    matchableAttributes: wireAttributes(options.matchable),
    latenciesMs: { ...options.latenciesMs },
    preferredMaps: [...(options.preferredMaps ?? [])],
    vetoedMaps: [...(options.vetoedMaps ?? [])],
  };
}

export interface FindResult {
  readonly assignment: Assignment;
  readonly queued: readonly Queued[];
}

/** A player's client: FindGame until the assignment arrives; rejects with the gRPC error. */
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
