/**
 * Colyseus's own client SDK (colyseus.js 0.16) in its own process: `concurrency` players at a time
 * call `joinOrCreate`, which asks the server's HTTP matchmaker for a seat reservation and then
 * opens the room's WebSocket with it; a player counts as placed when the join resolves. Prints
 * one JSON line: placed, seconds, per second, p50/p99 ms, errors.
 *   npx tsx perf/bench/colyseus/client.ts <port> [players=4000] [concurrency=64]
 */
import { Client } from 'colyseus.js';

const port = Number(process.argv[2]);
const players = Number(process.argv[3] ?? 4_000);
const concurrency = Number(process.argv[4] ?? 64);
const options = { difficulty: 'hard', hardcore: false, version: 'v201' };
const client = new Client(`ws://127.0.0.1:${port}`);
// colyseus.js logs every room the server closes; 4,000 players make 1,000 of those lines.
console.error = () => undefined;
console.warn = () => undefined;

let started = 0;
let placed = 0;
let errors = 0;
const latencies: number[] = [];
const begin = performance.now();
async function player(): Promise<void> {
  while (started < players) {
    started++;
    const at = performance.now();
    try {
      const room = await client.joinOrCreate('coop', options);
      latencies.push(performance.now() - at);
      placed++;
      // The server ends the room once four are seated; a room left short at the end stays open.
      room.onError(() => undefined);
      room.onLeave(() => undefined);
      room.send('seated');
    } catch {
      errors++;
    }
  }
}
await Promise.all(Array.from({ length: concurrency }, () => player()));
const seconds = (performance.now() - begin) / 1000;
latencies.sort((a, b) => a - b);
const quantile = (q: number): number => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
console.log(JSON.stringify({ placed, seconds, perSecond: placed / seconds, p50Ms: quantile(0.5), p99Ms: quantile(0.99), errors }));
process.exit(0);
