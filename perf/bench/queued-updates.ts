import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import type { FindGameUpdate } from '../../src/generated/gamefactory/v1/matchmaker.js';
import { findGameRequest } from '../../test/support/find-game.js';
import { TestCoordinator } from '../../test/integration/harness.js';

/**
 * `npx tsx perf/bench/queued-updates.ts [--tickets 50000] [--seconds 60]`: the `queued` updates one
 * FindGames stream receives while `tickets` wait for a game-server slot and the line moves (20
 * slots; every 2 s the five oldest games end). Counts the updates (batched ones each), from the
 * last ticket written, over `seconds`; prints one JSON line.
 */
const { values } = parseArgs({ options: { tickets: { type: 'string', default: '50000' }, seconds: { type: 'string', default: '60' } } });
const tickets = Number(values.tickets);
const seconds = Number(values.seconds);

const coordinator = await TestCoordinator.start(`
limits: { rate: { findGames: { perSecond: 1000000, burst: 1000000 } }, maxTicketsInFlightPerStream: 1000000 }
placement: { policy: fill, createTimeoutMs: 600000, maxQueuedPerFactory: 1000000, ticketTtlSeconds: 3000 }
factories:
  - name: solo
    partitioning: { region: [eu] }
    cooperative: { maxPlayers: 1 }
`);
const server = await coordinator.server({ serverId: 's1', maxGames: 20 }, { autoJoin: true });
const mover = setInterval(() => {
  for (const gameId of [...server.games.keys()].slice(0, 5)) server.endGame(gameId);
}, 2000);

let queued = 0;
let assigned = 0;
const count = (u: FindGameUpdate) => {
  if (u.update?.$case === 'batch') u.update.value.updates.forEach(count);
  else if (u.update?.$case === 'queued') queued++;
  else if (u.update?.$case === 'assignment') assigned++;
};
const stream = coordinator.client().findGames();
stream.on('data', count);
stream.on('error', () => {});
for (let i = 0; i < tickets; i++) {
  const more = stream.write({ request: { $case: 'find', value: findGameRequest({ ticketId: `t${i}`, template: 'solo', party: [`p${i}`], partition: { region: 'eu' } }) } });
  if (!more) await new Promise((r) => stream.once('drain', r));
}
const before = { queued, assigned };
await new Promise((r) => setTimeout(r, seconds * 1000));
const figures = { tickets, seconds, queuedWhileWriting: before.queued, queuedOverWindow: queued - before.queued, assignedOverWindow: assigned - before.assigned, loadavg: loadavg().map((l) => Math.round(l * 100) / 100) };
console.log(JSON.stringify(figures));
clearInterval(mover);
stream.cancel();
await coordinator.stop();
process.exit(0);
