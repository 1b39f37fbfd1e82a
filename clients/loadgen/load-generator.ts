import { credentials, type ServiceError } from '@grpc/grpc-js';
import { performance } from 'node:perf_hooks';
import { findGameRequest, type FindOptions } from '../lib/find-game.js';
import { GameServerConnection } from '../lib/game-server-connection.js';
import { TickBatch } from '../lib/tick-batch.js';
import type { PlainValue } from '../lib/wire-attributes.js';
import { MatchmakerClient, type FindGameRequest, type FindGameUpdate } from '../../src/generated/gamefactory/v1/matchmaker.js';

export interface LoadOptions {
  /** Coordinator address, host:port. */
  readonly address: string;
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
   * Batch on our side too (issue 15; default true): stream mode sends the finds of one tick in one
   * FindGamesBatch, and the fake servers coalesce their reports, so the figure measures the coordinator.
   */
  readonly batch?: boolean;
  readonly template: string;
  readonly partition: Record<string, PlainValue>;
  readonly matchable?: Record<string, PlainValue>;
  /** Distinguishes player and server ids between runs against the same coordinator. */
  readonly runId: string;
  readonly onProgress?: (done: number) => void;
}

export interface LoadReport {
  readonly sent: number;
  readonly assigned: number;
  readonly errorsByCode: Record<string, number>;
  readonly elapsedMs: number;
  readonly matchesPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly gamesEnded: number;
}

/**
 * A load generator for users: fake game servers, and FindGame arrivals at a rate, against any
 * coordinator. Bounded in count and time by its options; it stops by itself.
 */
export async function runLoad(options: LoadOptions): Promise<LoadReport> {
  const servers = await connectServers(options);
  const client = new MatchmakerClient(options.address, credentials.createInsecure(), {
    'grpc.max_concurrent_streams': 10_000,
  } as object);
  const latencies: number[] = [];
  const errorsByCode: Record<string, number> = {};
  let assigned = 0;
  let done = 0;
  const request = (i: number): FindOptions => ({
    ticketId: `${options.runId}-t${i}`,
    template: options.template,
    party: [`${options.runId}-p${i}`],
    partition: options.partition,
    matchable: options.matchable,
  });
  const settle = (startedAt: number, error: string | undefined) => {
    done++;
    if (error === undefined) {
      assigned++;
      latencies.push(performance.now() - startedAt);
    } else {
      errorsByCode[error] = (errorsByCode[error] ?? 0) + 1;
    }
    options.onProgress?.(done);
  };

  const startedAt = performance.now();
  const send = options.mode === 'unary' ? unarySender(client, settle) : streamSender(client, settle, options.batch !== false);
  await pace(options, (i) => send.find(request(i)));
  await send.close();
  const elapsedMs = performance.now() - startedAt;

  client.close();
  const gamesEnded = servers.reduce((n, s) => n + s.gamesEnded, 0);
  for (const s of servers) s.close();
  latencies.sort((a, b) => a - b);
  const pick = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return {
    sent: options.tickets,
    assigned,
    errorsByCode,
    elapsedMs,
    matchesPerSecond: (assigned / elapsedMs) * 1000,
    p50Ms: pick(0.5),
    p99Ms: pick(0.99),
    gamesEnded,
  };
}

async function connectServers(options: LoadOptions): Promise<GameServerConnection[]> {
  const servers = Array.from(
    { length: options.servers },
    (_, i) =>
      new GameServerConnection(
        options.address,
        { serverId: `${options.runId}-server${i}`, endpoint: `127.0.0.1:${7000 + i}`, maxGames: options.maxGamesPerServer },
        { autoJoin: true, endWhenFull: options.playersPerGame, batch: options.batch !== false },
      ),
  );
  await Promise.all(servers.map((s) => s.connect()));
  return servers;
}

type Settle = (startedAt: number, error: string | undefined) => void;
interface Sender {
  /** Resolves when the ticket has settled (assignment or error). */
  find(request: FindOptions): Promise<void>;
  close(): Promise<void>;
}

function unarySender(client: MatchmakerClient, settle: Settle): Sender {
  return {
    find: (request) =>
      new Promise((resolve) => {
        const startedAt = performance.now();
        let ok = false;
        const call = client.findGame(findGameRequest(request));
        call.on('data', (u: FindGameUpdate) => {
          if (u.update?.$case === 'assignment') ok = true;
        });
        call.on('error', (e: ServiceError) => {
          settle(startedAt, String(e.code));
          resolve();
        });
        call.on('end', () => {
          settle(startedAt, ok ? undefined : 'no-assignment');
          resolve();
        });
      }),
    close: async () => {},
  };
}

function streamSender(client: MatchmakerClient, settle: Settle, batch: boolean): Sender {
  const stream = client.findGames();
  const pending = new Map<string, { startedAt: number; resolve: () => void }>();
  const finds = new TickBatch<FindGameRequest>((batched) => stream.write({ request: { $case: 'batch', value: { finds: batched, cancels: [] } } }));
  const onUpdate = (u: FindGameUpdate): void => {
    if (u.update?.$case === 'batch') {
      for (const inner of u.update.value.updates) onUpdate(inner);
      return;
    }
    const entry = pending.get(u.ticketId);
    if (!entry || u.update?.$case === 'queued') return;
    pending.delete(u.ticketId);
    settle(entry.startedAt, u.update?.$case === 'assignment' ? undefined : String(u.update?.$case === 'error' ? u.update.value.code : 'unknown'));
    entry.resolve();
  };
  stream.on('data', onUpdate);
  const failAll = (code: string) => {
    for (const [id, entry] of pending) {
      pending.delete(id);
      settle(entry.startedAt, code);
      entry.resolve();
    }
  };
  stream.on('error', (e: ServiceError) => failAll(String(e.code)));
  stream.on('end', () => failAll('stream-ended'));
  return {
    find: (request) =>
      new Promise((resolve) => {
        pending.set(request.ticketId, { startedAt: performance.now(), resolve });
        if (batch) finds.push(findGameRequest(request));
        else stream.write({ request: { $case: 'find', value: findGameRequest(request) } });
      }),
    close: async () => {
      finds.flush();
      stream.end();
    },
  };
}

/** Sends tickets 0..n-1 at `rate` per second (or as fast as allowed), at most `concurrency` in flight. */
async function pace(options: LoadOptions, send: (i: number) => Promise<void>): Promise<void> {
  let inFlight = 0;
  let next = 0;
  const start = performance.now();
  await new Promise<void>((resolve) => {
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
        void send(i).then(() => {
          inFlight--;
          if (next >= options.tickets && inFlight === 0) resolve();
          else pump();
        });
      }
      if (options.tickets === 0) resolve();
    };
    pump();
  });
}
