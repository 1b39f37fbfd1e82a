/**
 * `npx tsx perf/profile/summarize-cpuprofile.ts FILE.cpuprofile [top]`: a text summary of a
 * `node --cpu-prof` profile: self time by area (grpc-js, http2/net, protobuf codec, coordinator,
 * tsx loader, GC, idle) and the top functions by self time. Used for perf/PROFILE.md "Transport".
 */
import { readFileSync } from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

const [file, topArg] = process.argv.slice(2);
if (!file) throw new Error('usage: summarize-cpuprofile.ts FILE.cpuprofile [top]');
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const selfUs = new Map<number, number>();
// PROFILE_FROM_US / PROFILE_TO_US: only the samples in that window of the monotonic clock (what
// process.hrtime reads in any process of the machine, as V8's profile timestamps do): a bench's
// measured load, without the start-up and warm-up around it. PROFILE_CAP_MS: a sample's time
// capped (a descheduled thread's next sample otherwise carries the whole wait on a busy machine).
const from = Number(process.env.PROFILE_FROM_US ?? -Infinity);
const to = Number(process.env.PROFILE_TO_US ?? Infinity);
const capUs = Number(process.env.PROFILE_CAP_MS ?? Infinity) * 1000;
let at = profile.startTime;
profile.samples.forEach((id, i) => {
  const delta = profile.timeDeltas[i] ?? 0;
  at += delta;
  if (at >= from && at <= to) selfUs.set(id, (selfUs.get(id) ?? 0) + Math.min(delta, capUs));
});

const AREAS: [string, (url: string, fn: string) => boolean][] = [
  ['idle', (_u, f) => f === '(idle)'],
  ['gc', (_u, f) => f === '(garbage collector)'],
  ['program (native, unattributed)', (_u, f) => f === '(program)'],
  ['grpc-js', (u) => u.includes('@grpc/grpc-js')],
  ['protobuf codec (generated, protobufjs/minimal)', (u) => u.includes('/generated/') || u.includes('protobufjs')],
  ['transport adapter (src/transport)', (u) => u.includes('/src/transport/')],
  ['coordinator core (src/coordinator, matchers, placement)', (u) => u.includes('/src/') && !u.includes('/src/transport/')],
  ['metrics/logging (prom-client, pino)', (u) => u.includes('prom-client') || u.includes('pino')],
  ['lmdb', (u) => u.includes('lmdb')],
  ['node internals: http2/net/stream/events', (u) => /node:(internal\/)?(http2|net|stream|events|internal\/streams|internal\/http2)/.test(u) || u.startsWith('node:internal/stream') || u.startsWith('node:internal/http2')],
  ['node internals: timers/process', (u) => u.startsWith('node:internal/timers') || u.startsWith('node:internal/process') || u.startsWith('node:timers')],
  ['other node internals', (u) => u.startsWith('node:')],
  ['tsx/esbuild loader', (u) => u.includes('tsx') || u.includes('esbuild')],
  ['native (no url)', (u) => u === ''],
  ['other', () => true],
];

const areaTotals = new Map<string, number>();
const fnTotals = new Map<string, number>();
let total = 0;
for (const [id, us] of selfUs) {
  const node = byId.get(id)!;
  const { url, functionName, lineNumber } = node.callFrame;
  const area = AREAS.find(([, test]) => test(url, functionName))![0];
  areaTotals.set(area, (areaTotals.get(area) ?? 0) + us);
  const short = url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*?\/(src|clients)\//, '$1/');
  const key = `${functionName || '(anonymous)'} ${short}:${lineNumber + 1}`;
  fnTotals.set(key, (fnTotals.get(key) ?? 0) + us);
  total += us;
}
const busy = total - (areaTotals.get('idle') ?? 0);
const pct = (us: number, of: number) => ((100 * us) / of).toFixed(1).padStart(5);
console.log(`total ${(total / 1e6).toFixed(2)} s sampled, busy ${(busy / 1e6).toFixed(2)} s`);
console.log('\nself time by area (% of busy):');
for (const [area, us] of [...areaTotals].sort((a, b) => b[1] - a[1])) {
  if (area !== 'idle') console.log(`${pct(us, busy)}%  ${(us / 1e3).toFixed(0).padStart(6)} ms  ${area}`);
}
// Inclusive: each sample goes to the outermost frame on its stack that names one of these files,
// i.e. "the time spent on behalf of" a FindGames message, a server's report, a timer...
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const ROOTS: [string, RegExp][] = [
  ['FindGames/FindGame handlers (src/transport/grpc/matchmaker.ts), inclusive', /transport\/grpc\/matchmaker\.ts/],
  ['server reports (src/transport/grpc/game-server-link.ts), inclusive', /transport\/grpc\/game-server-link\.ts/],
  ['core timers and promise callbacks outside handlers (src/), inclusive', /^file:(?!.*node_modules).*\/src\//],
  ['grpc-js outside our handlers, inclusive', /@grpc\/grpc-js/],
];
const rootTotals = new Map<string, number>();
for (const [id, us] of selfUs) {
  let label = 'rest (http2/net/GC/loader)';
  if (byId.get(id)!.callFrame.functionName === '(idle)') continue;
  const chain: string[] = [];
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) chain.push(byId.get(at)!.callFrame.url);
  outer: for (const [name, re] of ROOTS) {
    for (let i = chain.length - 1; i >= 0; i--) if (re.test(chain[i]!)) { label = name; break outer; }
  }
  rootTotals.set(label, (rootTotals.get(label) ?? 0) + us);
}
console.log('\ninclusive, by the outermost frame of ours on the stack (% of busy):');
for (const [label, us] of [...rootTotals].sort((a, b) => b[1] - a[1])) console.log(`${pct(us, busy)}%  ${(us / 1e3).toFixed(0).padStart(6)} ms  ${label}`);
// Inclusive per function of ours (a recursive frame counted once per sample).
const inclusive = new Map<string, number>();
for (const [id, us] of selfUs) {
  if (byId.get(id)!.callFrame.functionName === '(idle)') continue;
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const { url, functionName, lineNumber } = byId.get(at)!.callFrame;
    if (!/\/(src|clients)\//.test(url) || url.includes('node_modules')) continue;
    const key = `${functionName || '(anonymous)'} ${url.replace(/^file:\/\/.*?\/(src|clients)\//, '$1/')}:${lineNumber + 1}`;
    if (seen.has(key)) continue;
    seen.add(key);
    inclusive.set(key, (inclusive.get(key) ?? 0) + us);
  }
}
console.log(`\ntop functions of ours, inclusive (% of busy):`);
for (const [fn, us] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, Number(topArg ?? 30))) console.log(`${pct(us, busy)}%  ${(us / 1e3).toFixed(0).padStart(6)} ms  ${fn}`);
console.log(`\ntop functions by self time (% of busy):`);
for (const [fn, us] of [...fnTotals].sort((a, b) => b[1] - a[1]).slice(0, Number(topArg ?? 30))) {
  if (!fn.startsWith('(idle)')) console.log(`${pct(us, busy)}%  ${fn}`);
}
