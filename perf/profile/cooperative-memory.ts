/**
 * Heap bytes per open game in one CooperativeMatcher (the bench's fixture: 3 matchable
 * attributes, so 8 subsets a game; 0–2 players), after a full collection (perf/PROFILE.md):
 *   node --expose-gc --import tsx perf/profile/cooperative-memory.ts [n=100000]
 */
import { CooperativeMatcher } from '../../src/cooperative/index.js';

const n = Number(process.argv[2] ?? 100_000);
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with node --expose-gc');
const zones = Math.max(16, n >> 2);
const inputs = Array.from({ length: n }, (_, k) => ({
  gameId: `game-${k}`,
  attributes: new Map([
    ['act', `i:${k % 2}`],
    ['quest', `s:q${k % 16}`],
    ['zone', `s:z${k % zones}`],
  ]),
  playerIds: Array.from({ length: k % 3 }, (_, p) => `game-${k}/p${p}`),
  open: true,
  startedAt: k,
}));
gc();
// The index keeps its places and games in typed arrays, whose buffers are outside the JS heap.
const used = (): number => process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
const before = used();
const matcher = new CooperativeMatcher({ maxPlayers: 4, order: 'fill', matchableKeys: ['act', 'quest', 'zone'], reservationMs: 15_000 });
for (const input of inputs) matcher.addGame(input);
// Every game reserved once and released: the stale places the lazy index keeps are counted too.
for (let k = 0; k < n; k++) {
  matcher.reserveInGame(`game-${k}`, ['seeker'], `t${k}`, 0);
  matcher.releaseReservation(`t${k}`);
}
gc();
const after = used();
console.log(`${n} open games: ${Math.round((after - before) / n)} bytes a game, heap and array buffers (inputs excluded), ${matcher.openGameCount} open`);
