/**
 * Redis cost of a cooperative fill-up ticket through the Redis adapters (issue 11), against a
 * redis-server this suite starts, and redis-benchmark's ops/s on that same server in the same run.
 *
 * One game = SEATS single-player tickets filling an open game:
 *   per ticket, on the node the player called:  players-claim + ticket-intake + demand-record (one flush)
 *   the factory's owner, per game:              read the intake stream             (one flush)
 *                                               ticket-propose + order-deliver     (one flush)
 *   the server's node, per order:               read its outbox                    (one flush)
 *   on the server's confirmation:               ticket-assign + outbox ack + players-release (one flush)
 * Commands issued in the same tick go out in one write (ioredis auto-pipelining); a "round trip"
 * is one such write, counted on the socket. Commands: those the client sent (a script call is
 * one), and all the server ran including the ones inside scripts (INFO total_commands_processed).
 * The capacity rows bound how many tickets/s one Redis could feed: redis-benchmark's ops/s divided
 * by all commands per ticket (a low bound: a command inside a script costs less than one over the
 * network) and by client commands per ticket (a high bound).
 */
import { spawnSync } from 'node:child_process';
import { Redis } from 'ioredis';
import { RedisFactoryLease } from '../../src/redis/factory-lease.js';
import { RedisOrderOutbox } from '../../src/redis/order-outbox.js';
import { RedisPlayerIndex } from '../../src/redis/player-index.js';
import { RedisPlacement } from '../../src/redis/redis-placement.js';
import { RedisTicketBook } from '../../src/redis/ticket-book.js';
import { RedisServer } from '../../test/redis/redis-server.js';
import type { BenchOptions, BenchRow, BenchSuite } from './bench-suite.js';

const SEATS = 4;
const FACTORY = 'coop';
const GROUP = 'ticket round trips (cooperative fill-up, 4 seats/game)';

/**
 * Counts commands the client sends, and socket writes, merging the writes of one tick (one
 * auto-pipelined flush, or commands sent together) into one round trip.
 */
function meter(client: Redis): { readonly flushes: () => number; readonly commands: () => number } {
  let flushes = 0;
  let commands = 0;
  let inTick = false;
  const stream = client.stream as unknown as { write: (...a: unknown[]) => boolean };
  const write = stream.write.bind(stream);
  stream.write = (...a: unknown[]) => {
    if (!inTick) {
      flushes++;
      inTick = true;
      queueMicrotask(() => (inTick = false));
    }
    return write(...a);
  };
  const send = client.sendCommand.bind(client);
  client.sendCommand = (...a: Parameters<Redis['sendCommand']>) => {
    commands++;
    return send(...a);
  };
  return { flushes: () => flushes, commands: () => commands };
}

/** Commands the server ran, including those scripts ran (Redis 7 counts both). */
async function serverCommands(admin: Redis): Promise<number> {
  return Number(/total_commands_processed:(\d+)/.exec(await admin.info('stats'))![1]);
}

async function fillGames(games: number, base: number, client: Redis): Promise<void> {
  const players = await RedisPlayerIndex.open(client);
  const book = await RedisTicketBook.open(client);
  const outbox = await RedisOrderOutbox.open(client, 'node-b');
  const lease = await RedisFactoryLease.open(client, 'node-a', 60_000);
  const owner = (await lease.acquire(FACTORY)) as { token: number };
  const placement = await RedisPlacement.open({ client, policy: 'fill', now: Date.now });
  for (let g = 0; g < games; g++) {
    const ids = Array.from({ length: SEATS }, (_, i) => `t${base + g * SEATS + i}`);
    for (const id of ids) {
      await Promise.all([players.claim(id, [`p-${id}`]), book.intake(FACTORY, id, '{"mode":"coop"}'), placement.recordDemand(FACTORY)]);
    }
    const read = await book.read(FACTORY, 'node-a', SEATS);
    await Promise.all([
      book.propose(FACTORY, owner.token, Date.now() + 10_000, read),
      outbox.deliver('node-b', { orderId: `o${base + g}`, serverId: 'server-1', payload: 'reserve' }),
    ]);
    const [order] = await outbox.read(1);
    await Promise.all([
      book.assign(FACTORY, owner.token, '{"server":"server-1","game":"g"}', ids),
      outbox.ack([order!.entryId]),
      ...ids.map((id) => players.release(id, [`p-${id}`])),
    ]);
  }
}

export function redisBenchmarkOps(port: number, clients: number, requests: number): number {
  const run = spawnSync('redis-benchmark', ['-p', String(port), '-c', String(clients), '-n', String(requests), '-t', 'set', '--csv'], {
    encoding: 'utf8',
  });
  const line = run.stdout.split('\n').find((l) => l.startsWith('"SET"'));
  if (run.status !== 0 || line === undefined) throw new Error(`redis-benchmark failed: ${run.stderr}`);
  return Number(JSON.parse(`[${line}]`)[1]);
}

const suite: BenchSuite = {
  name: 'redis',
  async run({ quick }: BenchOptions): Promise<BenchRow[]> {
    const games = quick ? 50 : 1000;
    const server = await RedisServer.start({ appendfsync: 'everysec' });
    const client = new Redis(server.port, '127.0.0.1', { enableAutoPipelining: true });
    const admin = new Redis(server.port, '127.0.0.1');
    try {
      await fillGames(5, 1e9, client); // loads the scripts, creates the groups
      const sent = meter(client);
      const before = await serverCommands(admin);
      const started = performance.now();
      await fillGames(games, 0, client);
      const seconds = (performance.now() - started) / 1000;
      const after = await serverCommands(admin);
      const tickets = games * SEATS;
      const ticketsPerSecond = tickets / seconds;
      const single = redisBenchmarkOps(server.port, 1, quick ? 5_000 : 50_000);
      const many = redisBenchmarkOps(server.port, 50, quick ? 20_000 : 200_000);
      const clientCommands = sent.commands() / tickets;
      const allCommands = (after - before - 1) / tickets; // minus the INFO itself
      return [
        { group: GROUP, subject: 'gamefactory on Redis', metric: 'round trips/ticket', value: sent.flushes() / tickets, higherIsBetter: false },
        { group: GROUP, subject: 'gamefactory on Redis', metric: 'client commands/ticket', value: clientCommands, higherIsBetter: false },
        { group: GROUP, subject: 'gamefactory on Redis', metric: 'redis commands/ticket (incl. in scripts)', value: allCommands, higherIsBetter: false },
        { group: 'ticket flow vs redis-benchmark (1 client, same server)', subject: 'gamefactory on Redis', metric: 'tickets/s', value: ticketsPerSecond, higherIsBetter: true },
        { group: 'ticket flow vs redis-benchmark (1 client, same server)', subject: 'redis-benchmark SET -c 1', metric: 'ops/s', value: single, higherIsBetter: true },
        {
          group: 'ticket flow vs redis-benchmark (1 client, same server)',
          subject: 'gamefactory on Redis',
          metric: 'tickets/s per redis-benchmark op/s',
          value: ticketsPerSecond / single,
          higherIsBetter: true,
        },
        { group: 'redis capacity', subject: 'redis-benchmark SET -c 50', metric: 'ops/s', value: many, higherIsBetter: true },
        {
          group: 'redis capacity',
          subject: 'gamefactory on Redis',
          metric: 'tickets/s one Redis feeds, low bound (ops/s ÷ all commands/ticket)',
          value: many / allCommands,
          higherIsBetter: true,
        },
        {
          group: 'redis capacity',
          subject: 'gamefactory on Redis',
          metric: 'tickets/s one Redis feeds, high bound (ops/s ÷ client commands/ticket)',
          value: many / clientCommands,
          higherIsBetter: true,
        },
      ];
    } finally {
      client.disconnect();
      admin.disconnect();
      await server.stop();
    }
  },
};

export default suite;
