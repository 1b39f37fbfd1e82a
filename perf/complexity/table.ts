import type { CaseVerdict } from './check.js';

function formatNs(ns: number): string {
  if (ns >= 1e6) return `${(ns / 1e6).toFixed(2)} ms`;
  if (ns >= 1e3) return `${(ns / 1e3).toFixed(2)} µs`;
  return `${ns.toFixed(1)} ns`;
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(1);
}

/** The measured table for humans: per call, one row per size, then the fit and the verdict. */
export function formatVerdict(verdict: CaseVerdict): string {
  const { fit, measurement } = verdict;
  const lines = [`${verdict.passed ? 'PASS' : 'FAIL'}  ${verdict.name}`];
  lines.push(`  ${'n'.padStart(8)}  ${'W'.padStart(9)}  ${`${measurement.clock === 'main' ? 'main thread' : `${measurement.clock} time`}`.padStart(11)}  ${'slope'.padStart(6)}  ${'wall time'.padStart(10)}`);
  measurement.sizes.forEach((size, k) => {
    // The slope column is the growth from the previous size, log2(t/t_prev) per doubling of n.
    const slope = k === 0 ? '' : (fit.doublingSlopes[k - 1] ?? Number.NaN).toFixed(2);
    lines.push(
      `  ${String(size.n).padStart(8)}  ${String(size.callsPerSample).padStart(9)}  ${formatNs(size.nsPerCall).padStart(11)}  ${slope.padStart(6)}  ${formatNs(size.wallNsPerCall).padStart(10)}`,
    );
  });
  lines.push(
    `  fitted ${fit.fitted} (budget ${verdict.budget}): median doubling slope ${fit.medianDoublingSlope.toFixed(2)}, ` +
      `least-squares slope ${fit.leastSquaresSlope.toFixed(2)}, upper half ${fit.upperHalfSlope.toFixed(2)}, growth beyond n^power ${fit.residualGrowth.toFixed(2)}x ` +
      `(log factor predicts ${fit.logFactorPrediction.toFixed(2)}x)` +
      `${verdict.remeasured ? ', re-measured' : ''}`,
    `  took ${seconds(measurement.elapsedMs)} s: setup ${seconds(measurement.phasesMs.setup)}, ` +
      `calibration ${seconds(measurement.phasesMs.calibrate)}, samples ${seconds(measurement.phasesMs.sample)}, ` +
      `collections ${seconds(measurement.phasesMs.collect)}`,
  );
  return lines.join('\n');
}
