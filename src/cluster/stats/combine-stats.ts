import { displayValue, type AttributeSet } from '../../attributes/attribute-value.js';
import type { FactoryTemplate } from '../../config/config.js';
import { emptyStats, type StatsAnswer } from '../../coordinator/stats-query.js';

export { emptyStats };

/**
 * QueryStats over disjoint sets of factories (each factory is answered by one shard's core, each
 * shard by one node), combined as one core combines its factories (src/coordinator/stats-query.ts):
 * counts summed, the shortest and longest durations kept, the mean duration weighted by games, open
 * games by open slots summed index by index; competitive quality: means weighted by games formed,
 * the worst p99. The mean duration is not rounded here (each part's was, to the millisecond).
 */
export function combineStats(answers: readonly StatsAnswer[]): StatsAnswer {
  const total = emptyStats();
  let totalDuration = 0;
  for (const a of answers) {
    total.factories += a.factories;
    total.waitingTickets += a.waitingTickets;
    if (a.competitive) {
      const c = (total.competitive ??= { gamesFormed: 0, meanGapSigma: 0, p99GapSigma: 0, scoreMean: 0, scoreStdDev: 0 });
      const formed = c.gamesFormed + a.competitive.gamesFormed;
      const weigh = (mine: number, theirs: number) => (formed === 0 ? 0 : (mine * c.gamesFormed + theirs * a.competitive!.gamesFormed) / formed);
      c.meanGapSigma = weigh(c.meanGapSigma, a.competitive.meanGapSigma);
      c.scoreMean = weigh(c.scoreMean, a.competitive.scoreMean);
      c.scoreStdDev = weigh(c.scoreStdDev, a.competitive.scoreStdDev);
      c.p99GapSigma = Math.max(c.p99GapSigma, a.competitive.p99GapSigma);
      c.gamesFormed = formed;
    }
    a.openGamesByOpenSlots.forEach((count, i) => {
      total.openGamesByOpenSlots[i] = (total.openGamesByOpenSlots[i] ?? 0) + count;
    });
    total.openGames += a.openGames;
    total.openSlots += a.openSlots;
    total.players += a.players;
    if (a.games === 0) continue;
    total.minDurationMs = total.games === 0 ? a.minDurationMs : Math.min(total.minDurationMs, a.minDurationMs);
    total.maxDurationMs = Math.max(total.maxDurationMs, a.maxDurationMs);
    totalDuration += a.averageDurationMs * a.games;
    total.games += a.games;
  }
  total.averageDurationMs = total.games === 0 ? 0 : totalDuration / total.games;
  return total;
}

/**
 * Whether the factory named `name` is one of `template`'s with the given partition values (axes
 * left out match any value). Reads the name `factoryName` wrote, "<template>/<axis>=<value>/...",
 * with the axes in the template's order: each value runs up to the next axis's "/<key>=".
 */
export function factoryInPartition(template: FactoryTemplate, name: string, partition: AttributeSet): boolean {
  if (!name.startsWith(template.name)) return false;
  let rest = name.slice(template.name.length);
  for (let i = 0; i < template.axes.length; i++) {
    const head = `/${template.axes[i]!.key}=`;
    if (!rest.startsWith(head)) return false;
    rest = rest.slice(head.length);
    const next = template.axes[i + 1];
    const end = next === undefined ? rest.length : rest.indexOf(`/${next.key}=`);
    if (end < 0) return false;
    const wanted = partition.get(template.axes[i]!.key);
    if (wanted !== undefined && displayValue(wanted) !== rest.slice(0, end)) return false;
    rest = rest.slice(end);
  }
  return rest === '';
}
