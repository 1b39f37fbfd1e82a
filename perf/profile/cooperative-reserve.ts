/**
 * The cooperative bench's find + reserve + release loop, alone in a process (perf/PROFILE.md).
 * With several sizes (`1000,100000`) it builds a matcher of each and alternates short bursts
 * between them for the whole run, so a neighbour's load on this shared machine falls on every
 * size alike and the ratio between sizes holds still. With CPU_PROFILE=file.cpuprofile the timed
 * loop alone is profiled (setup excluded) through the inspector:
 *   npx tsx perf/profile/cooperative-reserve.ts [n=100000 | n1,n2,...] [seconds=3] [selective|broad]
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { CooperativeMatcher } from '../../src/cooperative/index.js';

const sizes = (process.argv[2] ?? '100000').split(',').map(Number);
const seconds = Number(process.argv[3] ?? 3);
const kind = process.argv[4] ?? 'selective';

interface Subject {
  readonly n: number;
  readonly matcher: CooperativeMatcher;
  readonly queries: ReadonlyMap<string, string>[];
  calls: number;
  cpuMicros: number;
  wallMs: number;
}

function subject(n: number): Subject {
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
  return { n, matcher, queries, calls: 0, cpuMicros: 0, wallMs: 0 };
}

/** Reserve + release for about `ms` of wall time (whole multiples of 1024 calls). */
function burst(s: Subject, ms: number): void {
  const end = performance.now() + ms;
  const cpuStart = process.cpuUsage();
  const start = performance.now();
  let calls = s.calls;
  while ((calls & 1023) !== 0 || performance.now() < end) {
    const token = `t${calls}`;
    s.matcher.reserve(s.queries[calls % s.queries.length]!, ['seeker'], token, calls);
    s.matcher.releaseReservation(token);
    calls++;
  }
  const cpu = process.cpuUsage(cpuStart);
  s.wallMs += performance.now() - start;
  s.cpuMicros += cpu.user + cpu.system;
  s.calls = calls;
}

const subjects = sizes.map(subject);
// Warm up every size (JIT, caches), then count only what follows.
for (const s of subjects) burst(s, 100);
for (const s of subjects) Object.assign(s, { calls: 0, cpuMicros: 0, wallMs: 0 });

const profileTo = process.env['CPU_PROFILE'];
const session = profileTo === undefined ? undefined : new Session();
if (session !== undefined) {
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
}
const end = performance.now() + seconds * 1000;
while (performance.now() < end) for (const s of subjects) burst(s, subjects.length === 1 ? seconds * 1000 : 25);
if (session !== undefined && profileTo !== undefined) {
  const { profile } = await session.post('Profiler.stop');
  writeFileSync(profileTo, JSON.stringify(profile));
}
const perCpuSecond = (s: Subject): number => s.calls / (s.cpuMicros / 1e6);
for (const s of subjects) {
  console.log(
    `${kind} n=${s.n}: ${Math.round((s.calls / s.wallMs) * 1000).toLocaleString('en')} reserve+release/s wall, ` +
      `${Math.round(perCpuSecond(s)).toLocaleString('en')}/s of CPU` +
      (s === subjects[0] ? '' : `, ${(perCpuSecond(s) / perCpuSecond(subjects[0]!)).toFixed(3)} of n=${subjects[0]!.n}`),
  );
}
console.log(`rss ${Math.round(process.memoryUsage().rss / 2 ** 20)} MB`);
