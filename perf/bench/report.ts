import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import type { BenchRow } from './bench-suite.js';
import { renderGroupChart } from './report-chart.js';

export interface SuiteResult {
  readonly name: string;
  readonly elapsedMs: number;
  readonly rows: readonly BenchRow[];
  /** Set when the suite threw; its rows are then empty. */
  readonly error?: string;
}

export interface BenchReport {
  readonly generatedAt: string;
  readonly quick: boolean;
  readonly machine: { readonly cpu: string; readonly cores: number; readonly node: string; readonly platform: string };
  readonly suites: readonly SuiteResult[];
}

export function describeReport(suites: readonly SuiteResult[], quick: boolean): BenchReport {
  return {
    generatedAt: new Date().toISOString(),
    quick,
    machine: {
      cpu: cpus()[0]?.model ?? 'unknown',
      cores: cpus().length,
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
    },
    suites,
  };
}

/** The subject other rows are compared with: our own implementation. */
export function isOurs(subject: string): boolean {
  const s = subject.toLowerCase();
  return s === 'ours' || s.startsWith('gamefactory');
}

export interface RowGroup {
  readonly group: string;
  readonly rows: readonly BenchRow[];
}

/** Groups in order of first appearance; a group may span suites. */
export function groupRows(suites: readonly SuiteResult[]): RowGroup[] {
  const groups = new Map<string, BenchRow[]>();
  for (const suite of suites) {
    for (const row of suite.rows) {
      const rows = groups.get(row.group) ?? [];
      rows.push(row);
      groups.set(row.group, rows);
    }
  }
  return [...groups].map(([group, rows]) => ({ group, rows }));
}

/** value / ours for the row measured at the same n with the same metric, when there is one. */
export function ratioToOurs(row: BenchRow, groupRowsOf: readonly BenchRow[]): number | undefined {
  const ours = groupRowsOf.find((r) => isOurs(r.subject) && r.n === row.n && r.metric === row.metric);
  if (ours === undefined || ours.value === 0) return undefined;
  return row.value / ours.value;
}

export function chartFileName(group: string): string {
  const slug = group
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
  return `${slug || 'group'}.svg`;
}

function formatRatio(ratio: number): string {
  return `${ratio >= 0.1 && ratio < 100 ? ratio.toFixed(2) : ratio.toPrecision(2)}×`;
}

function formatValue(value: number): string {
  return value.toLocaleString('en-US', { maximumSignificantDigits: 4 });
}

export function renderMarkdown(report: BenchReport, chartFiles: ReadonlyMap<string, string>): string {
  const lines = [
    '# Benchmarks',
    '',
    `${report.generatedAt}${report.quick ? ' (quick run: small sizes, not for comparison)' : ''} — ` +
      `${report.machine.cpu}, ${report.machine.cores} cores, node ${report.machine.node}, ${report.machine.platform}.`,
    '',
    'Compare rows within one run only: the ratio column divides each value by gamefactory\'s at the same n and metric.',
    '',
  ];
  for (const { group, rows } of groupRows(report.suites)) {
    const withN = rows.some((r) => r.n !== undefined);
    lines.push(`## ${group}`, '');
    lines.push(`| ${withN ? 'n | ' : ''}subject | metric | value | vs gamefactory |`);
    lines.push(`| ${withN ? '---: | ' : ''}--- | --- | ---: | ---: |`);
    // With n: a block per metric (first appearance first), rising n, like the chart. Without n:
    // the suite's own order.
    const metricOrder = [...new Set(rows.map((r) => r.metric))];
    const ordered = withN
      ? [...rows].sort((a, b) => metricOrder.indexOf(a.metric) - metricOrder.indexOf(b.metric) || (a.n ?? 0) - (b.n ?? 0))
      : rows;
    for (const row of ordered) {
      const ratio = ratioToOurs(row, rows);
      const direction = row.higherIsBetter ? '↑' : '↓';
      lines.push(
        `| ${withN ? `${row.n ?? ''} | ` : ''}${row.subject} | ${row.metric} ${direction} | ${formatValue(row.value)} | ` +
          `${ratio === undefined ? '—' : formatRatio(ratio)} |`,
      );
    }
    const chart = chartFiles.get(group);
    if (chart !== undefined) lines.push('', `![${group}](${chart})`);
    lines.push('');
  }
  const failed = report.suites.filter((s) => s.error !== undefined);
  if (failed.length > 0) {
    lines.push('## Suites that failed', '');
    for (const suite of failed) lines.push(`- ${suite.name}: ${suite.error}`);
    lines.push('');
  }
  return lines.join('\n');
}

export interface WrittenReport {
  readonly jsonPath: string;
  readonly markdownPath: string;
  readonly chartPaths: readonly string[];
}

/** Writes latest.json, latest.md and one SVG per group that varies n into `directory`. */
export async function writeReport(report: BenchReport, directory: string): Promise<WrittenReport> {
  mkdirSync(directory, { recursive: true });
  const chartFiles = new Map<string, string>();
  const chartPaths: string[] = [];
  for (const { group, rows } of groupRows(report.suites)) {
    const svg = await renderGroupChart(group, rows);
    if (svg === undefined) continue;
    const file = chartFileName(group);
    writeFileSync(join(directory, file), svg);
    chartFiles.set(group, file);
    chartPaths.push(join(directory, file));
  }
  const jsonPath = join(directory, 'latest.json');
  const markdownPath = join(directory, 'latest.md');
  writeFileSync(jsonPath, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(markdownPath, renderMarkdown(report, chartFiles));
  return { jsonPath, markdownPath, chartPaths };
}
