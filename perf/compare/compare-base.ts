/**
 * The same bench suites on two checkouts, interleaved: `npx tsx perf/compare/compare-base.ts
 * [--base DIR] [--rounds N] [--quick] suite...` runs each suite in the base checkout (default
 * /work/wt/base-1afd647: `git worktree add --detach /work/wt/base-1afd647 1afd647`, then
 * `npm ci` there) and in this one, alternating which goes first each round, and prints, per row,
 * the median of each side and ours/base (for lower-is-better rows, base/ours: above 1 is always
 * ours faster). The load average is printed beside: on a shared machine, read the ratios, not the
 * absolute figures. Writes perf/results/base-comparison.md.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { BenchRow } from '../bench/bench-suite.js';

const args = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const at = args.indexOf(name);
  return at >= 0 ? args.splice(at, 2)[1]! : fallback;
};
const base = option('--base', '/work/wt/base-1afd647');
const rounds = Number(option('--rounds', '3'));
const quick = args.includes('--quick');
const suites = args.filter((a) => !a.startsWith('--'));
if (suites.length === 0) suites.push('end-to-end', 'cooperative', 'competitive', 'placement', 'memory');
const ours = fileURLToPath(new URL('../..', import.meta.url));
const runner = fileURLToPath(new URL('./one-suite.ts', import.meta.url));

function run(checkout: string, suite: string): BenchRow[] {
  const child = spawnSync('npx', ['tsx', runner, suite, ...(quick ? ['--quick'] : [])], { cwd: checkout, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (child.status !== 0) throw new Error(`${suite} in ${checkout} failed:\n${child.stderr}`);
  return JSON.parse(child.stdout.trim().split('\n').at(-1)!) as BenchRow[];
}

const keyOf = (r: BenchRow) => `${r.group} | ${r.subject} | ${r.n ?? ''} | ${r.metric}`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
const samples = new Map<string, { row: BenchRow; base: number[]; ours: number[] }>();
const loads: number[] = [];

for (let round = 0; round < rounds; round++) {
  for (const suite of suites) {
    const order: ['base' | 'ours', string][] = round % 2 === 0 ? [['base', base], ['ours', ours]] : [['ours', ours], ['base', base]];
    for (const [side, checkout] of order) {
      loads.push(loadavg()[0]!);
      console.error(`round ${round + 1}/${rounds}: ${suite} (${side}), load ${loadavg()[0]!.toFixed(1)}`);
      for (const row of run(checkout, suite)) {
        const key = `${suite} | ${keyOf(row)}`;
        const entry = samples.get(key) ?? { row, base: [], ours: [] };
        entry[side].push(row.value);
        samples.set(key, entry);
      }
    }
  }
}

const lines = [
  `# ${suites.join(', ')}: this checkout against ${base}, ${rounds} interleaved rounds${quick ? ' (quick)' : ''}`,
  '',
  `Load average (1 min) during the runs: ${Math.min(...loads).toFixed(1)} to ${Math.max(...loads).toFixed(1)}, on ${spawnSync('nproc').stdout?.toString().trim()} cores.`,
  '',
  '| suite | group | subject | n | metric | base (median) | ours (median) | ours faster by |',
  '| --- | --- | --- | ---: | --- | ---: | ---: | ---: |',
];
for (const [key, { row, base: b, ours: o }] of samples) {
  if (b.length === 0 || o.length === 0) continue;
  const [mb, mo] = [median(b), median(o)];
  const ratio = row.higherIsBetter ? mo / mb : mb / mo;
  const suite = key.split(' | ')[0];
  lines.push(`| ${suite} | ${row.group} | ${row.subject} | ${row.n ?? ''} | ${row.metric} | ${mb.toPrecision(4)} | ${mo.toPrecision(4)} | ${ratio.toFixed(2)}x |`);
}
const text = lines.join('\n') + '\n';
writeFileSync(fileURLToPath(new URL('../results/base-comparison.md', import.meta.url)), text);
console.log(text);
