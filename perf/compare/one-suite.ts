/**
 * Runs one bench suite of the checkout in the current directory and prints its rows as JSON (the
 * last line of stdout). Used by compare-base.ts to run the same suite in two checkouts: the suite
 * is imported from the working directory's perf/bench, so it measures that checkout's code.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [filter, ...flags] = process.argv.slice(2);
if (!filter) throw new Error('usage: tsx perf/compare/one-suite.ts <suite> [--quick]');
const suites = (await import(pathToFileURL(join(process.cwd(), 'perf/bench/suites.ts')).href)) as typeof import('../bench/suites.js');
const [suite] = (await suites.loadSuites(filter, join(process.cwd(), 'perf/bench'))).filter((s) => s.name === filter);
if (!suite) throw new Error(`no bench suite named "${filter}" in ${process.cwd()}`);
const result = await suites.runSuite(suite, { quick: flags.includes('--quick') });
if (result.error !== undefined) throw new Error(result.error);
console.log(JSON.stringify(result.rows));
process.exit(0);
