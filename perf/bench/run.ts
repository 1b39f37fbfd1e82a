/**
 * `npm run bench [-- --quick] [-- filter]`: runs every perf/bench/*.bench.ts in sequence (they
 * time work, so never two at once) and writes perf/results/latest.{json,md} plus an SVG per group
 * that varies n. Exits non-zero when a suite failed.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Presets, SingleBar } from 'cli-progress';
import { describeReport, writeReport, type SuiteResult } from './report.js';
import { loadSuites, runSuite } from './suites.js';

const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  // Without this, `--help` ran every suite (it is neither --quick nor a filter).
  console.log('usage: npm run bench [-- --quick] [-- filter]   (filter: part of a perf/bench/*.bench.ts file or suite name)');
  process.exit(0);
}
const quick = args.includes('--quick');
const filter = args.find((arg) => !arg.startsWith('--')) ?? '';
const resultsDirectory = fileURLToPath(new URL('../results/', import.meta.url));

const suites = await loadSuites(filter);
if (suites.length === 0) {
  console.error(`no bench suites match "${filter}"`);
  process.exit(1);
}

// Without a terminal (CI logs) cli-progress draws nothing, so print a line per suite instead.
const interactive = process.stdout.isTTY === true;
const bar = new SingleBar({ format: '{bar} {value}/{total} suites | {suite} | {duration_formatted}', hideCursor: true }, Presets.shades_classic);
if (interactive) bar.start(suites.length, 0, { suite: suites[0]!.name });

const results: SuiteResult[] = [];
for (const suite of suites) {
  if (interactive) bar.update({ suite: suite.name });
  else console.log(`running ${suite.name}${quick ? ' (quick)' : ''}...`);
  const result = await runSuite(suite, { quick });
  results.push(result);
  if (interactive) bar.increment();
  else console.log(`  ${result.error === undefined ? `${result.rows.length} rows` : 'FAILED'} in ${(result.elapsedMs / 1000).toFixed(1)} s`);
}
if (interactive) bar.stop();

const written = await writeReport(describeReport(results, quick), resultsDirectory);
for (const result of results.filter((r) => r.error !== undefined)) console.error(`${result.name} failed:\n${result.error}`);
console.log(`wrote ${[written.jsonPath, written.markdownPath, ...written.chartPaths].map((p) => join('.', p.replace(process.cwd(), ''))).join(', ')}`);
process.exitCode = results.some((r) => r.error !== undefined) ? 1 : 0;
