/**
 * The complexity suite for humans: `npx tsx perf/complexity/run.ts [filter]` measures every case
 * under cases/ whose name or file contains the filter, prints its table, and exits non-zero when
 * a case grows faster than its budget.
 */
import { checkCase } from './check.js';
import { loadCases } from './discover.js';
import { formatVerdict } from './table.js';

const filter = (process.argv[2] ?? '').toLowerCase();
const cases = (await loadCases()).filter(
  ({ file, complexityCase }) => file.toLowerCase().includes(filter) || complexityCase.name.toLowerCase().includes(filter),
);
if (cases.length === 0) console.log(`no complexity cases match "${filter}"`);

let failures = 0;
for (const { file, complexityCase } of cases) {
  const verdict = checkCase(complexityCase);
  if (!verdict.passed) failures++;
  console.log(`${formatVerdict(verdict)}\n  (${file})\n`);
}
console.log(`${cases.length - failures}/${cases.length} within budget`);
process.exitCode = failures === 0 ? 0 : 1;
