import type { Complexity, ComplexityCase } from './case.js';
import { fitGrowth, withinBudget, type GrowthFit } from './classify.js';
import { measureCase, type CaseMeasurement, type MeasureOptions, type SizeMeasurement } from './measure.js';

export interface CaseVerdict {
  readonly name: string;
  readonly budget: Complexity;
  readonly measurement: CaseMeasurement;
  readonly fit: GrowthFit;
  readonly passed: boolean;
  /** True when the first measurement was over budget and the case was measured again. */
  readonly remeasured: boolean;
}

/**
 * Measures a case, fits its growth and compares it with the budget. A result over budget is
 * measured once more before it counts: load from a neighbour only ever adds time, so the two
 * runs are combined by keeping each size's faster median, and the fit is redone on that.
 */
export function checkCase<State>(c: ComplexityCase<State>, overrides: Partial<MeasureOptions> = {}): CaseVerdict {
  const first = measureCase(c, overrides);
  const firstFit = fitGrowth(first.sizes);
  if (withinBudget(firstFit.fitted, c.budget)) {
    return { name: c.name, budget: c.budget, measurement: first, fit: firstFit, passed: true, remeasured: false };
  }
  const second = measureCase(c, overrides);
  const combined: CaseMeasurement = {
    ...second,
    sizes: first.sizes.map((size, k) => fasterOf(size, second.sizes[k])),
    elapsedMs: first.elapsedMs + second.elapsedMs,
  };
  const fit = fitGrowth(combined.sizes);
  return { name: c.name, budget: c.budget, measurement: combined, fit, passed: withinBudget(fit.fitted, c.budget), remeasured: true };
}

function fasterOf(a: SizeMeasurement, b: SizeMeasurement | undefined): SizeMeasurement {
  return b !== undefined && b.nsPerCall < a.nsPerCall ? b : a;
}
