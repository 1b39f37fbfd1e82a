/**
 * Waiting tickets sent from this process to a coordinator in another, for the outside-RSS memory
 * bench: every ticket is a one-player cooperative party for a factory whose only server has no
 * free slot, so each one waits (queued for a slot) until the stream closes.
 */
import { credentials, type ClientReadableStream } from '@grpc/grpc-js';
import { MatchmakerClient, type FindGameRequest, type FindGameUpdate } from '../../src/generated/gamefactory/v1/matchmaker.js';

export const WAITING_CONFIG = `
placement: { policy: fill, createTimeoutMs: 600000, maxQueuedPerFactory: 10000000, ticketTtlSeconds: 86400 }
factories:
  - name: coop
    partitioning: { region: [eu] }
    matchable: [act]
    cooperative: { maxPlayers: 4 }
`;

function request(runId: string, i: number): FindGameRequest {
  return {
    ticketId: `${runId}-t${i}`,
    template: 'coop',
    party: [{ playerId: `${runId}-p${i}` }],
    partitionAttributes: { region: { kind: { $case: 'stringValue', value: 'eu' } } },
    // Four acts: riders share a creation only with the same act, as real parties would.
    matchableAttributes: { act: { kind: { $case: 'intValue', value: BigInt(i % 4) } } },
    latenciesMs: {},
    preferredMaps: [],
    vetoedMaps: [],
  };
}

const BATCH = 1000;

export interface WaitingTickets {
  /** Ends the calls (the coordinator abandons their tickets). */
  close(): void;
}

/** `count` tickets over one batched FindGames stream; resolves once each has had its queued update. */
export async function waitOverOneStream(address: string, runId: string, count: number): Promise<WaitingTickets> {
  const client = new MatchmakerClient(address, credentials.createInsecure());
  const stream = client.findGames();
  let queued = 0;
  // A ticket hears `queued` again as its place in line moves: count each ticket once.
  const answered = new Uint8Array(count);
  const prefix = `${runId}-t`;
  await new Promise<void>((resolve, reject) => {
    const seen = (update: FindGameUpdate) => {
      const u = update.update;
      if (u?.$case === 'batch') return u.value.updates.forEach(seen);
      const i = Number(update.ticketId.slice(prefix.length));
      if (u?.$case === 'queued' && answered[i] === 0) {
        answered[i] = 1;
        queued++;
      }
      else if (u?.$case === 'error') reject(new Error(`${update.ticketId}: ${u.value.message}`));
    };
    stream.on('data', (update: FindGameUpdate) => {
      seen(update);
      if (queued >= count) resolve();
    });
    stream.on('error', reject);
    let next = 0;
    const pump = () => {
      while (next < count) {
        const finds: FindGameRequest[] = [];
        for (const end = Math.min(count, next + BATCH); next < end; next++) finds.push(request(runId, next));
        if (!stream.write({ request: { $case: 'batch', value: { finds, cancels: [] } } })) return void stream.once('drain', pump);
      }
    };
    pump();
  });
  return {
    close() {
      stream.cancel();
      client.close();
    },
  };
}

/** `count` tickets, each on its own FindGame call (server stream), spread over `channels` connections. */
export async function waitOnOwnStreams(address: string, runId: string, count: number, channels = 8): Promise<WaitingTickets> {
  // Distinct channel options give distinct connections (grpc-js shares a subchannel otherwise).
  const clients = Array.from({ length: channels }, (_, i) => new MatchmakerClient(address, credentials.createInsecure(), { 'grpc.max_concurrent_streams': 1 << 30, 'gamefactory.bench.channel': i } as object));
  const calls: ClientReadableStream<FindGameUpdate>[] = [];
  let queued = 0;
  await new Promise<void>((resolve, reject) => {
    let next = 0;
    const open = () => {
      // In slices, so the event loop reads answers between them (and the client holds no more than it must).
      for (const end = Math.min(count, next + BATCH); next < end; next++) {
        const call = clients[next % channels]!.findGame(request(runId, next));
        let answered = false; // a ticket hears `queued` again as its place moves: count the first
        call.on('data', (update: FindGameUpdate) => {
          if (update.update?.$case !== 'queued' || answered) return;
          answered = true;
          if (++queued >= count) resolve();
          else if (queued === next) setImmediate(open);
        });
        call.on('error', (error: Error & { code?: number }) => {
          if (error.code !== 1) reject(error); // CANCELLED: our own close
        });
        calls.push(call);
      }
    };
    open();
  });
  return {
    close() {
      for (const call of calls) call.cancel();
      for (const client of clients) client.close();
    },
  };
}
