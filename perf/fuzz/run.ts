import { parseArgs } from 'node:util';
import { runFuzz } from './fuzz-run.js';

/**
 * `npm run fuzz -- --runs 1000000 [--seed N] [--concurrency 64]`: the fuzz suite for long runs
 * (issue 14). Prints progress every 1000 cases and a JSON report; exits 1 when it found defects,
 * each with a reproducer (the case as JSON, and the seed to regenerate it).
 */
const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '10000' },
    seed: { type: 'string', default: String(Date.now() % 2 ** 31) },
    concurrency: { type: 'string', default: '64' },
  },
});
const runs = Number(values.runs);
const seed = Number(values.seed);
if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs: "${values.runs}" is not a positive integer`);

const report = await runFuzz({
  runs,
  seed,
  concurrency: Number(values.concurrency),
  onProgress: (done, r) => {
    if (done % 10_000 === 0 || done === runs) {
      console.error(`${done}/${runs} cases, ${r.defects.length} defects, heap ${r.heapMb.peak} MB peak, ${Math.round(r.durationMs / 1000)} s`);
    }
  },
});
console.log(JSON.stringify(report, null, 2));
console.error(`fuzz: ${report.runs} cases (seed ${seed}) in ${Math.round(report.durationMs / 1000)} s, ${report.defects.length} defects; heap ${report.heapMb.before} → ${report.heapMb.after} MB (peak ${report.heapMb.peak})`);
process.exit(report.defects.length > 0 ? 1 : 0);
