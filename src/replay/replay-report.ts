import type { TopLevelSpec } from 'vega-lite';
import { renderSvg } from '../charts/vega-svg.js';
import type { ReplayResult } from './replay.js';

/** Configurations side by side: one row each, the recorded run first when there is one. */
export function replayTable(results: readonly ReplayResult[]): string {
  const header = ['', 'tickets', 'matched', 'waiting', 'wait mean', 'p50', 'p90', 'p99', 'gap mean (sd)', 'gap p90', 'favourite wins', 'quality'];
  const fixed = (x: number, digits: number) => (Number.isFinite(x) ? x.toFixed(digits) : '-');
  const rows = results.map((r) => {
    const o = r.overall;
    return [
      r.label,
      String(o.tickets),
      String(o.matched),
      String(o.unmatched),
      `${fixed(o.waitS.mean, 2)} s`,
      `${fixed(o.waitS.p50, 2)} s`,
      `${fixed(o.waitS.p90, 2)} s`,
      `${fixed(o.waitS.p99, 2)} s`,
      fixed(o.gapSigma.mean, 3),
      fixed(o.gapSigma.p90, 3),
      fixed(o.favouriteWinProbability.mean, 3),
      fixed(o.matchQuality.mean, 3),
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (cells: readonly string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(header), ...rows.map(line)].join('\n');
}

/** Waits, gaps and quality of each configuration, as SVG. */
export async function replayCharts(results: readonly ReplayResult[]): Promise<{ file: string; svg: string }[]> {
  const chart = async (title: string, subtitle: string, values: object[], x: string, xTitle: string, y: string, yTitle: string) =>
    renderSvg({
      $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
      title: { text: title, subtitle },
      background: 'white',
      width: 520,
      height: 280,
      data: { values },
      mark: { type: 'line', point: true },
      encoding: {
        x: { field: x, type: 'quantitative', title: xTitle },
        y: { field: y, type: 'quantitative', title: yTitle },
        color: { field: 'configuration', type: 'nominal', title: null },
      },
    } as TopLevelSpec);
  const share = (bins: readonly { from: number; count: number }[]) => {
    const total = bins.reduce((s, b) => s + b.count, 0) || 1;
    return bins.map((b) => ({ from: b.from, share: b.count / total }));
  };
  return [
    {
      file: 'waits.svg',
      svg: await chart(
        'Waits on the recorded arrivals',
        'Share of tickets by seconds waited, per configuration (the recorded run as it happened, when recorded).',
        results.flatMap((r) => share(r.overall.waitsHistogram).map((b) => ({ configuration: r.label, seconds: b.from, share: b.share }))),
        'seconds',
        'wait (s, last bin = 59 s or more)',
        'share',
        'share of tickets',
      ),
    },
    {
      file: 'gaps.svg',
      svg: await chart(
        'Score gaps on the recorded arrivals',
        "Share of games by best-minus-worst score, in standard deviations of the factory's scores, per configuration.",
        results
          .filter((r) => r.overall.gapSigma.count > 0)
          .flatMap((r) => share(r.overall.gapsHistogram).map((b) => ({ configuration: r.label, gap: b.from, share: b.share }))),
        'gap',
        'gap (sd, last bin = 1.95 sd or more)',
        'share',
        'share of games',
      ),
    },
  ];
}
