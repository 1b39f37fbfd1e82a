/**
 * The complexity suite (DESIGN.md, "Complexity budgets"): one test per case found in
 * cases/*.case.ts, failing when the case grows faster than its declared budget.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, test } from 'vitest';
import type { ComplexityCase } from './case.js';
import { checkCase } from './check.js';
import { caseFiles, casesDirectory } from './discover.js';
import { formatVerdict } from './table.js';

// A case takes about a second; one over budget is measured twice, and large setups add more.
const perCaseTimeoutMs = 120_000;

for (const file of caseFiles()) {
  // Import per file, so a case file that fails to load is one failing test, not a lost suite.
  let cases: ComplexityCase<unknown>[] | undefined;
  let loadError: unknown;
  try {
    const module = (await import(pathToFileURL(join(casesDirectory, file)).href)) as { default?: unknown };
    if (!Array.isArray(module.default)) throw new Error(`${file} must default-export an array of complexity cases`);
    cases = module.default as ComplexityCase<unknown>[];
  } catch (error) {
    loadError = error;
  }

  describe(file, () => {
    if (cases === undefined) {
      test('loads', () => {
        throw loadError;
      });
      return;
    }
    for (const complexityCase of cases) {
      test(`${complexityCase.name} is within ${complexityCase.budget}`, () => {
        const verdict = checkCase(complexityCase);
        console.log(formatVerdict(verdict));
        expect(verdict.passed, formatVerdict(verdict)).toBe(true);
      }, perCaseTimeoutMs);
    }
  });
}
