import { GameServer } from '@gamefactory/game-server-sdk';
import { parsePairs } from './plain-pairs.js';

export interface ExampleServerOptions {
  readonly coordinator: string;
  readonly id: string;
  readonly endpoint: string;
  readonly maxGames: string;
  readonly attr: string[];
  /** Seconds a game runs before the server ends it (0: games never end by themselves). */
  readonly gameSeconds: string;
}

/**
 * An example game server on @gamefactory/game-server-sdk: creates every game it is ordered to and
 * lets its players in at once with their reservation token (a real server admits each player when
 * its client connects and presents the token). Games end after --game-seconds (60), freeing their slot. The
 * first Ctrl-C drains: no new games, running ones may finish; the second exits.
 */
export async function runExampleServer(opts: ExampleServerOptions): Promise<void> {
  const maxGames = Number(opts.maxGames);
  if (!Number.isInteger(maxGames) || maxGames < 0) throw new Error(`--max-games: "${opts.maxGames}" must be a whole number >= 0`);
  const gameSeconds = Number(opts.gameSeconds);
  if (!Number.isFinite(gameSeconds) || gameSeconds < 0) throw new Error(`--game-seconds: "${opts.gameSeconds}" must be a number >= 0`);
  const server = new GameServer({
    addresses: opts.coordinator.split(','),
    serverId: opts.id,
    endpoint: opts.endpoint,
    attributes: parsePairs(opts.attr),
    capacity: { maxGames },
    createGame: (order) => {
      console.log(`create game for ${order.factory}: ${order.players.map((p) => p.playerId).join(', ')}`);
    },
  });
  server.on('seatsReserved', ({ gameId, seats }) => {
    for (const { playerId, token } of seats) void server.admit(gameId, playerId, token).catch((error: Error) => console.error(error.message));
    if (gameSeconds > 0) setTimeout(() => server.endGame(gameId), gameSeconds * 1000).unref();
  });
  server.on('connected', ({ address, factories }) => {
    console.log(`connected to ${address} as ${opts.id}; serving ${factories.length} factories:`);
    for (const factory of factories) console.log(`  ${factory}`);
  });
  server.on('disconnected', ({ address, details, retryInMs }) =>
    console.log(`lost ${address}: ${details}${retryInMs === undefined ? '' : `; reconnecting in ${retryInMs} ms`}`),
  );
  server.on('rejected', (reason) => console.error(`rejected: ${reason}`));
  const closed = new Promise<void>((resolve) => server.once('closed', (error) => {
    console.log(`stopped${error ? `: ${error.details}` : ''}`);
    if (error) process.exitCode = 1;
    resolve();
  }));
  let signals = 0;
  process.on('SIGINT', () => {
    if (++signals > 1) return server.close();
    console.log('draining: no new games; Ctrl-C again to stop now');
    void server.drain({ timeoutMs: 60_000 });
  });
  await server.start().catch(() => {});
  await closed;
}
