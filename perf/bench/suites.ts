import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { BenchOptions, BenchSuite } from './bench-suite.js';
import type { SuiteResult } from './report.js';

export const benchDirectory = fileURLToPath(new URL('.', import.meta.url));

/** Every `*.bench.ts` beside this file, in name order, whose file or suite name contains `filter`. */
export async function loadSuites(filter = '', directory: string = benchDirectory): Promise<BenchSuite[]> {
  const wanted = filter.toLowerCase();
  const suites: BenchSuite[] = [];
  const files = readdirSync(directory)
    .filter((name) => name.endsWith('.bench.ts'))
    .sort();
  for (const file of files) {
    const module = (await import(pathToFileURL(join(directory, file)).href)) as { default?: BenchSuite };
    const suite = module.default;
    if (suite === undefined || typeof suite.run !== 'function') throw new Error(`${file} must default-export a BenchSuite`);
    if (file.toLowerCase().includes(wanted) || suite.name.toLowerCase().includes(wanted)) suites.push(suite);
  }
  return suites;
}

/** Runs one suite; a suite that throws becomes a result with an error, so the others still run. */
export async function runSuite(suite: BenchSuite, options: BenchOptions): Promise<SuiteResult> {
  const startedAt = performance.now();
  try {
    const rows = await suite.run(options);
    return { name: suite.name, elapsedMs: performance.now() - startedAt, rows };
  } catch (error) {
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
    return { name: suite.name, elapsedMs: performance.now() - startedAt, rows: [], error: message };
  }
}
