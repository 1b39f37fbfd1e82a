import type { TopLevelSpec } from 'vega-lite';
import { renderSvg } from '../../src/charts/vega-svg.js';
import type { BenchRow } from './bench-suite.js';

/**
 * One chart for a group that varies n: value against n on log axes, a line per subject, one panel
 * per metric (each with its own y scale). Rendered headless to SVG with vega; no browser or canvas.
 * Returns undefined when the group has no n to chart.
 */
export async function renderGroupChart(group: string, rows: readonly BenchRow[]): Promise<string | undefined> {
  const values = rows
    .filter((r) => r.n !== undefined && r.n > 0 && r.value > 0)
    .map((r) => ({ n: r.n, value: r.value, subject: r.subject, metric: `${r.metric} (${r.higherIsBetter ? 'higher' : 'lower'} is better)` }));
  if (values.length === 0) return undefined;

  const panel = {
    width: 480,
    height: 260,
    mark: { type: 'line', point: true },
    encoding: {
      x: { field: 'n', type: 'quantitative', scale: { type: 'log', base: 2 }, title: 'n' },
      y: { field: 'value', type: 'quantitative', scale: { type: 'log' }, title: null },
      color: { field: 'subject', type: 'nominal', title: null },
    },
  } as const;
  const spec: TopLevelSpec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: group,
    background: 'white',
    data: { values },
    facet: { row: { field: 'metric', type: 'nominal', title: null } },
    spec: panel,
    resolve: { scale: { y: 'independent' } },
  } as TopLevelSpec;

  return renderSvg(spec);
}
