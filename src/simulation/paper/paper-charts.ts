import type { TopLevelSpec } from 'vega-lite';
import { renderSvg } from '../../charts/vega-svg.js';
import type { GroupSample, PaperReport } from './paper-experiment.js';

/**
 * The paper's convergence figures (Figures 5-8 for Elo, 10-13 for TrueSkill), each with the lenience
 * rule and gamefactory's matcher side by side on the same population: players per rating group,
 * their mean wait, their win rate and their mean true MMR, against the tick.
 */
export async function renderPaperCharts(report: PaperReport): Promise<{ file: string; svg: string }[]> {
  const figures: { key: keyof GroupSample; file: string; title: string; yTitle: string; caption: string }[] = [
    { key: 'players', file: 'players', title: 'Players per rating group', yTitle: 'players', caption: 'Everyone starts at the mean rating; the groups fill toward the shape of the true distribution.' },
    { key: 'meanWaitTicks', file: 'waits', title: 'Mean wait per rating group', yTitle: 'mean wait (ticks)', caption: 'Ticks waited before a game, by the rating group the player was in when it started.' },
    { key: 'winRate', file: 'win-rate', title: 'Win rate per rating group', yTitle: 'share of games won', caption: 'Of games ended in each window, the share won by players of the group: balanced games pull it to 50%.' },
    { key: 'meanTrueMmr', file: 'true-mmr', title: 'Mean true MMR per rating group', yTitle: 'mean true MMR', caption: "As ratings converge, a group's players' hidden MMR comes to lie in the group's own range." },
  ];
  const out: { file: string; svg: string }[] = [];
  for (const system of ['elo', 'trueskill'] as const) {
    const runs = report.runs.filter((r) => r.system === system);
    const order = runs[0]?.samples[0]?.groups.map((g) => g.group) ?? [];
    for (const figure of figures) {
      const values = runs.flatMap((run) =>
        run.samples.flatMap((s) =>
          s.groups
            .filter((g) => Number.isFinite(g[figure.key] as number))
            .map((g) => ({ matcher: run.matcher, tick: s.tick, group: g.group, value: g[figure.key] })),
        ),
      );
      const spec = {
        $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
        title: { text: `${figure.title} (${system === 'elo' ? 'Elo' : 'TrueSkill'})`, subtitle: figure.caption },
        background: 'white',
        data: { values },
        facet: { column: { field: 'matcher', type: 'nominal', title: null } },
        spec: {
          width: 300,
          height: 240,
          mark: { type: 'line' },
          encoding: {
            x: { field: 'tick', type: 'quantitative', title: 'tick' },
            y: { field: 'value', type: 'quantitative', title: figure.yTitle, scale: { zero: false } },
            color: { field: 'group', type: 'nominal', title: 'rating group', sort: order },
          },
        },
      } as TopLevelSpec;
      out.push({ file: `${system}-${figure.file}.svg`, svg: await renderSvg(spec) });
    }
  }
  return out;
}
