/**
 * The cooperative bench's find + reserve + release loop at one size, alone in a process
 * (perf/PROFILE.md). With CPU_PROFILE=file.cpuprofile the timed loop alone is profiled (setup
 * excluded) through the inspector:
 *   npx tsx perf/profile/cooperative-reserve.ts [n=100000] [seconds=3] [selective|broad]
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { CooperativeMatcher } from '../../src/cooperative/index.js';

const n = Number(process.argv[2] ?? 100_000);
const seconds = Number(process.argv[3] ?? 3);
const kind = process.argv[4] ?? 'selective';
const zones = Math.max(16, n >> 2);

const matcher = new CooperativeMatcher({ maxPlayers: 4, order: 'fill', matchableKeys: ['act', 'quest', 'zone'], reservationMs: 15_000 });
for (let k = 0; k < n; k++) {
  const attributes = new Map([
    ['act', `i:${k % 2}`],
    ['quest', `s:q${k % 16}`],
    ['zone', `s:z${k % zones}`],
  ]);
  const playerIds = Array.from({ length: k % 3 }, (_, p) => `game-${k}/p${p}`);
  matcher.addGame({ gameId: `game-${k}`, attributes, playerIds, open: true, startedAt: k });
}
const queries = Array.from({ length: 4_096 }, (_, i) => {
  const r = (Math.imul(i + 1, 2654435761) >>> 0) % zones;
  return kind === 'selective' ? new Map([['zone', `s:z${r}`]]) : new Map([['act', `i:${r % 2}`]]);
});

const profileTo = process.env['CPU_PROFILE'];
const session = profileTo === undefined ? undefined : new Session();
if (session !== undefined) {
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
}
const end = performance.now() + seconds * 1000;
let calls = 0;
const cpuStart = process.cpuUsage();
const start = performance.now();
while ((calls & 1023) !== 0 || performance.now() < end) {
  const token = `t${calls}`;
  matcher.reserve(queries[calls % queries.length]!, ['seeker'], token, calls);
  matcher.releaseReservation(token);
  calls++;
}
const elapsed = performance.now() - start;
const cpu = process.cpuUsage(cpuStart);
if (session !== undefined && profileTo !== undefined) {
  const { profile } = await session.post('Profiler.stop');
  writeFileSync(profileTo, JSON.stringify(profile));
}
const perCpuSecond = calls / ((cpu.user + cpu.system) / 1e6);
console.log(
  `${kind} n=${n}: ${Math.round((calls / elapsed) * 1000).toLocaleString('en')} reserve+release/s wall, ` +
    `${Math.round(perCpuSecond).toLocaleString('en')}/s of CPU, rss ${Math.round(process.memoryUsage().rss / 2 ** 20)} MB`,
);
