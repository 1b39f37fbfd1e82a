import { GameServer } from '@gamefactory/game-server-sdk';
import { FindError, Matchmaker, type FindRequest, type PlainValue } from '@gamefactory/matchmaking-client';
import { performance } from 'node:perf_hooks';

export interface LoadOptions {
  /** Coordinator address, host:port, or several nodes of a cluster: host:port,host:port,... */
  readonly address: string;
  /**
   * With several addresses: send each find to the node that owns its factory once a route hint
   * named it (the matchmaking client's `followOwner`). Off, finds take the client's turn over
   * the nodes (calls) or its one stream (stream mode), and hints are ignored.
   */
  readonly followOwner?: boolean;
  /** Fake game servers to connect (0: use the servers already there). */
  readonly servers: number;
  readonly maxGamesPerServer: number;
  /** Players per game: each fake server ends a game when this many are in it, freeing its slot. */
  readonly playersPerGame: number;
  /** FindGame tickets to send in all. */
  readonly tickets: number;
  /** Arrivals per second; 0 = as fast as `concurrency` allows. */
  readonly rate: number;
  /** Most tickets in flight at once. */
  readonly concurrency: number;
  /** `unary`: one FindGame call per ticket; `stream`: every ticket over one FindGames stream. */
  readonly mode: 'unary' | 'stream';
  /**
   * Batch on our side too (default true): stream mode sends the finds of one tick in one
   * FindGamesBatch, and the fake servers coalesce their reports, so the figure measures the coordinator.
   */
  readonly batch?: boolean;
  readonly template: string;
  readonly partition: Record<string, PlainValue>;
  readonly matchable?: Record<string, PlainValue>;
  /** Distinguishes player and server ids between runs against the same coordinator. */
  readonly runId: string;
  /** Competitive templates: each ticket's player gets the score this gives for ticket i. */
  readonly score?: (i: number) => number;
  readonly onProgress?: (done: number) => void;
}

export interface LoadReport {
  readonly sent: number;
  readonly assigned: number;
  readonly errorsByCode: Record<string, number>;
  /** The first error message seen for each code: what to look for in the coordinator's log. */
  readonly errorExamples: Record<string, string>;
  readonly elapsedMs: number;
  readonly matchesPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly gamesEnded: number;
}

/**
 * A load generator for users: fake game servers (@gamefactory/game-server-sdk) and FindGame
 * arrivals at a rate (@gamefactory/matchmaking-client), against any coordinator. Bounded in count
 * and time by its options; it stops by itself.
 */
export async function runLoad(options: LoadOptions): Promise<LoadReport> {
  const fleet = await connectServers(options);
  const matchmaker = new Matchmaker({
    addresses: options.address.split(','),
    followOwner: options.followOwner === true,
    multiplex: options.mode === 'stream',
    batch: options.batch !== false,
    // Every ticket of unary mode is a call of its own on the one connection.
    channelOptions: { 'grpc.max_concurrent_streams': 10_000 } as object,
  });
  const latencies = new Float64Array(options.tickets);
  const errorsByCode: Record<string, number> = {};
  const errorExamples: Record<string, string> = {};
  let assigned = 0;
  let done = 0;
  // The same attribute objects for every ticket: read, never changed, by the client.
  const partition = options.partition;
  const matchable = options.matchable;
  const request = (i: number): FindRequest => ({
    ticketId: `${options.runId}-t${i}`,
    template: options.template,
    party: [options.score ? { playerId: `${options.runId}-p${i}`, score: options.score(i) } : `${options.runId}-p${i}`],
    partition,
    matchable,
  });
  /** Sends ticket i; `settled` is called once it has its assignment or has failed. One reaction a ticket, no promise chain. */
  const find = (i: number, settled: () => void): void => {
    const sentAt = performance.now();
    matchmaker.find(request(i)).assignment.then(
      (assignment) => {
        if (!assignment.gameId || !assignment.reservationToken) {
          errorsByCode['no-assignment'] = (errorsByCode['no-assignment'] ?? 0) + 1;
        } else {
          latencies[assigned++] = performance.now() - sentAt;
        }
        options.onProgress?.(++done);
        settled();
      },
      (error: unknown) => {
        const code = error instanceof FindError ? String(error.code) : 'no-assignment';
        errorsByCode[code] = (errorsByCode[code] ?? 0) + 1;
        errorExamples[code] ??= error instanceof Error ? error.message : String(error);
        options.onProgress?.(++done);
        settled();
      },
    );
  };

  const startedAt = performance.now();
  await pace(options, find);
  const elapsedMs = performance.now() - startedAt;

  matchmaker.close();
  const gamesEnded = fleet.gamesEnded();
  fleet.close();
  const sorted = latencies.subarray(0, assigned).sort();
  const pick = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return {
    sent: options.tickets,
    assigned,
    errorsByCode,
    errorExamples,
    elapsedMs,
    matchesPerSecond: (assigned / elapsedMs) * 1000,
    p50Ms: pick(0.5),
    p99Ms: pick(0.99),
    gamesEnded,
  };
}

/** Fake game servers whose players arrive at once and whose games end as soon as they are full. */
async function connectServers(options: LoadOptions): Promise<{ gamesEnded(): number; close(): void }> {
  let gamesEnded = 0;
  const servers = Array.from({ length: options.servers }, (_, i) => {
    const server = new GameServer({
      addresses: options.address.split(','),
      serverId: `${options.runId}-server${i}`,
      endpoint: `127.0.0.1:${7000 + i}`,
      capacity: { maxGames: options.maxGamesPerServer },
      batch: options.batch !== false,
      createGame: () => {},
    });
    server.on('seatsReserved', ({ gameId, seats }) => {
      for (const { playerId, token } of seats) void server.admit(gameId, playerId, token).catch(() => {});
      if ((server.games.get(gameId)?.players.size ?? 0) >= options.playersPerGame) {
        gamesEnded++;
        server.endGame(gameId);
      }
    });
    return server;
  });
  await Promise.all(servers.map((s) => s.start()));
  return { gamesEnded: () => gamesEnded, close: () => servers.forEach((s) => s.close()) };
}

/** Sends tickets 0..n-1 at `rate` per second (or as fast as allowed), at most `concurrency` in flight. */
async function pace(options: LoadOptions, send: (i: number, settled: () => void) => void): Promise<void> {
  let inFlight = 0;
  let next = 0;
  const start = performance.now();
  await new Promise<void>((resolve) => {
    const settled = () => {
      inFlight--;
      if (next >= options.tickets && inFlight === 0) resolve();
      else pump();
    };
    const pump = () => {
      while (next < options.tickets && inFlight < options.concurrency) {
        if (options.rate > 0) {
          const due = start + (next / options.rate) * 1000;
          const wait = due - performance.now();
          if (wait > 1) {
            setTimeout(pump, wait);
            return;
          }
        }
        const i = next++;
        inFlight++;
        send(i, settled);
      }
      if (options.tickets === 0) resolve();
    };
    pump();
  });
}
