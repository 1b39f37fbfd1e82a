import type { TopLevelSpec } from 'vega-lite';
import { renderSvg } from '../charts/vega-svg.js';
import { isOurs } from './operating-points.js';
import type { SimulationReport } from './simulation.js';

export interface Chart {
  readonly file: string;
  /** What the chart shows, in one sentence (also its subtitle). */
  readonly caption: string;
  readonly svg: string;
}

const SCHEMA = 'https://vega.github.io/schema/vega-lite/v6.json';

function spec(title: string, caption: string, values: object[], body: object): TopLevelSpec {
  return {
    $schema: SCHEMA,
    title: { text: title, subtitle: caption },
    background: 'white',
    width: 520,
    height: 280,
    data: { values },
    ...body,
  } as TopLevelSpec;
}

/** The six charts, from the report alone. */
export async function renderCharts(report: SimulationReport): Promise<Chart[]> {
  const charts: { file: string; title: string; caption: string; values: object[]; body: object }[] = [];
  const line = (x: string, xTitle: string, y: string, yTitle: string, color = 'matcher', xScale: object = {}) => ({
    mark: { type: 'line', point: true },
    encoding: {
      x: { field: x, type: 'quantitative', title: xTitle, scale: xScale },
      y: { field: y, type: 'quantitative', title: yTitle },
      color: { field: color, type: 'nominal', title: null },
    },
  });
  charts.push({
    file: 'waits.svg',
    title: 'Distribution of waits',
    caption: 'Share of tickets by seconds waited before their game formed, per matcher at its default setting, on the same arrivals.',
    values: report.distributions.flatMap((d) => {
      const total = d.waitsS.reduce((s, b) => s + b.count, 0) || 1;
      return d.waitsS.map((b) => ({ matcher: d.matcher, seconds: b.from, share: b.count / total }));
    }),
    body: line('seconds', 'wait (s, last bin = 59 s or more)', 'share', 'share of tickets'),
  });
  charts.push({
    file: 'gaps.svg',
    title: 'Distribution of skill gaps',
    caption: 'Share of games by true-skill gap between best and worst player, in standard deviations of the population.',
    values: report.distributions.flatMap((d) => {
      const total = d.gapsSigma.reduce((s, b) => s + b.count, 0) || 1;
      return d.gapsSigma.map((b) => ({ matcher: d.matcher, gap: b.from, share: b.count / total }));
    }),
    body: line('gap', 'gap (sd, last bin = 1.95 sd or more)', 'share', 'share of games'),
  });
  charts.push({
    file: 'frontier.svg',
    title: 'Gap/wait frontier',
    caption:
      'Each point is one matcher setting: mean wait against mean skill gap at 2, 20 and 200 players/s (gamefactory: the efficient settings of each kind); lower-left is better.',
    values: efficient(report.frontier).map((p) => ({ ...p, rate: `${p.rate} players/s` })),
    body: {
      width: 260,
      height: 260,
      facet: { column: { field: 'rate', type: 'nominal', title: null, sort: report.frontier.map((p) => `${p.rate} players/s`) } },
      spec: {
        width: 260,
        height: 260,
        mark: { type: 'line', point: true },
        encoding: {
          x: { field: 'meanWaitS', type: 'quantitative', title: 'mean wait (s, log)', scale: { type: 'log' } },
          y: { field: 'meanGapSigma', type: 'quantitative', title: 'mean gap (sd, log)', scale: { type: 'log' } },
          color: { field: 'matcher', type: 'nominal', title: null, legend: { orient: 'bottom', columns: 3, labelLimit: 320 } },
          order: { field: 'meanWaitS' },
        },
      },
      resolve: { scale: { x: 'independent', y: 'independent' } },
    },
  });
  charts.push({
    file: 'quality.svg',
    title: 'Predicted balance against outcomes',
    caption: `Games of the day by the chance the matcher gave the side rated higher (${report.main.matchedOn}) to win, and how often it did: on the diagonal the figure is calibrated.`,
    values: report.main.favouriteCalibration.flatMap((b) => [
      { matcher: 'predicted', p: b.predicted, share: b.predicted, games: b.games },
      { matcher: 'won', p: b.predicted, share: b.won, games: b.games },
    ]),
    body: line('p', 'predicted chance the favourite wins', 'share', 'share of games'),
  });
  charts.push({
    file: 'rating-error.svg',
    title: 'Rating error against games played',
    caption: `Mean distance from a player's rating to the rating of their true rank, as a share of the rating range, by games played (matched on ${report.main.matchedOn}).`,
    values: report.ratings.flatMap((r) => r.errorByGames.map((g) => ({ matcher: r.system, games: g.games, error: g.meanError }))),
    body: line('games', 'games played (last point: 50 or more)', 'error', 'mean error (share of rating range)'),
  });
  charts.push({
    file: 'win-rate.svg',
    title: 'Win rate of the higher-rated side',
    caption: 'Per simulated hour, how often the side each rating system rated higher won: it rises as ratings learn; closer games pull it toward 50%.',
    values: report.ratings.flatMap((r) => r.higherRatedWinRate.map((h) => ({ matcher: r.system, hour: h.hour, winRate: h.winRate }))),
    body: line('hour', 'simulated hour', 'winRate', 'win rate of the higher-rated side'),
  });
  charts.push({
    file: 'latency.svg',
    title: "Chosen region's latency",
    caption: `Games by the worst real latency of their players to the region gamefactory chose (${report.scenario.factory}, locality prior for tickets without pings).`,
    values: report.main.latencyHistogram.map((b) => ({ matcher: 'gamefactory', ms: b.from, games: b.count })),
    body: {
      mark: 'bar',
      encoding: {
        x: { field: 'ms', type: 'quantitative', bin: { binned: true, step: 10 }, title: 'worst latency (ms, last bin = 390 ms or more)' },
        x2: { field: 'end' },
        y: { field: 'games', type: 'quantitative', title: 'games' },
      },
      transform: [{ calculate: 'datum.ms + 10', as: 'end' }],
    },
  });
  const out: Chart[] = [];
  for (const c of charts) out.push({ file: c.file, caption: c.caption, svg: await renderSvg(spec(c.title, c.caption, c.values, c.body)) });
  return out;
}

/** Our settings that no other setting of the same kind beats on both mean wait and mean gap, per rate; baselines as they are. */
function efficient(points: SimulationReport['frontier']): SimulationReport['frontier'] {
  return points.filter(
    (p) =>
      !isOurs(p.matcher) ||
      !points.some(
        (q) =>
          q !== p &&
          q.matcher === p.matcher &&
          q.rate === p.rate &&
          q.meanWaitS <= p.meanWaitS &&
          q.meanGapSigma <= p.meanGapSigma &&
          (q.meanWaitS < p.meanWaitS || q.meanGapSigma < p.meanGapSigma),
      ),
  );
}
