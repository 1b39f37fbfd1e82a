/**
 * The chaos run's game servers, a process of their own: `tsx perf/chaos/servers.ts '<json ServersPlan>'`.
 * Servers on @gamefactory/game-server-sdk that host every factory, create a game for every
 * CreateGame, let players in as soon as their seats are reserved, and never end a game during
 * the run (so a player seated twice is still seated twice at the end). Every order received,
 * game created and capacity advertised is recorded as a contract observation. A JSON line on
 * stdin (`{"maxGames": n}`) sets every server's capacity; the process exits when stdin closes.
 */
import { GameServer } from '@gamefactory/game-server-sdk';
import { createInterface } from 'node:readline';
import { ObservationLog } from './observation-log.js';
import type { ServersCommand, ServersPlan } from './servers-plan.js';

const plan = JSON.parse(process.argv[2]!) as ServersPlan;
const log = new ObservationLog(plan.out);

function serve(serverId: string, index: number): GameServer {
  const first = plan.firstNodeOnly ? 0 : index % plan.addresses.length;
  const addresses = [...plan.addresses.slice(first), ...plan.addresses.slice(0, first)];
  let games = 0;
  const server: GameServer = new GameServer({
    addresses,
    serverId,
    endpoint: `127.0.0.1:${7000 + index}`,
    capacity: { maxGames: plan.maxGames },
    reconnect: { initialDelayMs: 50, maxDelayMs: 500 },
    createGame: (order) => {
      const gameId = `${serverId}-g${++games}`;
      const at = Date.now();
      const template = order.factory.slice(0, order.factory.indexOf('/'));
      log.add({ kind: 'game', at, serverId, gameId, factory: order.factory, maxPlayers: plan.maxPlayers[template] ?? Number.MAX_SAFE_INTEGER });
      for (const p of order.players) log.add({ kind: 'seat', at, serverId, gameId, playerId: p.playerId, token: p.token });
      return gameId;
    },
  });
  server.on('message', (message) => {
    const orders = message.order?.$case === 'batch' ? message.order.value.orders : [message];
    const at = Date.now();
    for (const m of orders) {
      if (m.order?.$case !== 'reserveSeats') continue;
      const { gameId, seats } = m.order.value;
      for (const seat of seats) log.add({ kind: 'seat', at, serverId, gameId, playerId: seat.playerId, token: seat.reservationToken });
    }
  });
  // The players arrive at once.
  server.on('seatsReserved', ({ gameId, seats }) => {
    for (const seat of seats) server.admit(gameId, seat.playerId, seat.token).catch(() => {});
  });
  log.add({ kind: 'slots', serverId, maxGames: plan.maxGames });
  return server;
}

const servers = plan.serverIds.map(serve);
await Promise.all(servers.map((s) => s.start()));
process.stdout.write('ready\n');
const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const command = JSON.parse(line) as ServersCommand;
  for (const [i, server] of servers.entries()) {
    server.setCapacity({ maxGames: command.maxGames });
    log.add({ kind: 'slots', serverId: plan.serverIds[i]!, maxGames: command.maxGames });
  }
  process.stdout.write('capacity\n');
});
lines.once('close', async () => {
  for (const server of servers) server.close();
  await log.close();
  process.exit(0);
});
