/**
 * `npx tsx perf/profile/long-tasks.ts FILE.cpuprofile [count]`: the longest stretches of a
 * `node --cpu-prof` profile in which the main thread never went idle (one task of the event loop,
 * or several back to back), each with the frames of ours that ran longest in it (inclusive). What
 * a node did when its event loop stalled for seconds. PROFILE_FROM_US / PROFILE_TO_US: a window.
 */
import { readFileSync } from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
const [file, countArg] = process.argv.slice(2);
if (!file) throw new Error('usage: long-tasks.ts FILE.cpuprofile [count]');
const profile = JSON.parse(readFileSync(file, 'utf8')) as { nodes: Node[]; startTime: number; samples: number[]; timeDeltas: number[] };
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const from = Number(process.env.PROFILE_FROM_US ?? -Infinity);
const to = Number(process.env.PROFILE_TO_US ?? Infinity);

interface Stretch { start: number; end: number; samples: { id: number; us: number }[] }
const stretches: Stretch[] = [];
let current: Stretch | undefined;
let at = profile.startTime;
profile.samples.forEach((id, i) => {
  const delta = profile.timeDeltas[i] ?? 0;
  at += delta;
  if (at < from || at > to) return;
  const idle = byId.get(id)!.callFrame.functionName === '(idle)';
  if (idle) {
    if (current) stretches.push(current);
    current = undefined;
    return;
  }
  current ??= { start: at - delta, end: at, samples: [] };
  current.end = at;
  current.samples.push({ id, us: delta });
});
if (current) stretches.push(current);

const label = (id: number) => {
  const { url, functionName, lineNumber } = byId.get(id)!.callFrame;
  return `${functionName || '(anonymous)'} ${url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*?\/(src|clients)\//, '$1/')}:${lineNumber + 1}`;
};
for (const s of stretches.sort((a, b) => b.end - b.start - (a.end - a.start)).slice(0, Number(countArg ?? 5))) {
  const inclusive = new Map<string, number>();
  for (const { id, us } of s.samples) {
    const seen = new Set<string>();
    for (let n: number | undefined = id; n !== undefined; n = parent.get(n)) {
      const key = label(n);
      const url = byId.get(n)!.callFrame.url;
      if (seen.has(key) || !(url.includes('/src/') || byId.get(n)!.callFrame.functionName.startsWith('('))) continue;
      seen.add(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + us);
    }
  }
  console.log(`\n${((s.end - s.start) / 1000).toFixed(0)} ms without idling, from ${s.start} (${s.samples.length} samples)`);
  for (const [key, us] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.FRAMES ?? 14))) console.log(`  ${(us / 1000).toFixed(0).padStart(6)} ms  ${key}`);
}
