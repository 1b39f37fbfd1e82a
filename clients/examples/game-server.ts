import { GameServerConnection } from '../lib/game-server-connection.js';
import { parsePairs } from '../lib/plain-pairs.js';

/**
 * An example game server: connects, advertises its slots, creates every game it is asked to and
 * seats the players at once (a real server would wait for their clients to connect with the
 * reservation token). Games end after a minute, freeing their slot.
 */
export async function runExampleServer(opts: { coordinator: string; id: string; endpoint: string; maxGames: string; attr: string[] }) {
  const connection = new GameServerConnection(
    opts.coordinator,
    { serverId: opts.id, endpoint: opts.endpoint, attributes: parsePairs(opts.attr), maxGames: Number(opts.maxGames) },
    {
      autoJoin: true,
      decide: (order) => {
        console.log(`create game for ${order.factory}: ${order.seats.map((s) => s.playerId).join(', ')}`);
        setTimeout(() => {
          for (const [gameId, game] of connection.games) if (game.players.size > 0 && Math.random() < 0.5) connection.endGame(gameId);
        }, 60_000).unref();
        return 'create';
      },
    },
  );
  const welcome = await connection.connect();
  console.log(`connected as ${opts.id}; serving ${welcome.factories.length} factories:`);
  for (const factory of welcome.factories) console.log(`  ${factory}`);
  const ended = await connection.whenEnded();
  console.log(`stream ended: ${ended ? ended.details : 'OK'}`);
}
