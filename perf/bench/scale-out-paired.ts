/**
 * The scale-out bench's goal figure for a lone node: a 1-node cluster's tickets per CPU second ÷
 * the embedded node's. Measured apart (the embedded node, then minutes later, after its processes
 * stopped, a cluster on its own Redis) the ratio moved with this shared machine's load between
 * the two: 0.42, 0.53 and 0.60 in runs of the same code. Here the two nodes run at the same time,
 * each warmed, and each round loads the embedded node alone, then the cluster's node alone, with
 * the same tickets (which goes first alternates by round); a round's ratio divides two figures read seconds apart, under much the same
 * load from the rest of the machine. The goal row is the median of the rounds' ratios, so one
 * round that another job's burst hit does not decide it.
 */
import type { BenchRow } from './bench-suite.js';
import { interleavedRounds, median } from './interleaved-rounds.js';
import type { LoadOutcome } from './scale-out-load.js';
import { tally, type BenchNode } from './scale-out-nodes.js';

/** Drives `node` alone with `tickets` finds through its load process(es); `learned`: what its warm-up's ended with (routes). */
export type LoadNode = (node: BenchNode, label: string, tickets: number, learned?: readonly LoadOutcome[]) => Promise<LoadOutcome[]>;

export interface PairedOptions {
  /** Each node's measured load in a round. */
  readonly tickets: number;
  /** Each node's warm-up before the first round. */
  readonly warm: number;
  readonly rounds: number;
}

export async function pairedRounds(group: string, embedded: BenchNode, cluster: BenchNode, load: LoadNode, { tickets, warm, rounds }: PairedOptions): Promise<BenchRow[]> {
  const sides = [
    { name: 'embedded node', label: 'paired-embedded', node: embedded },
    { name: '1-node cluster', label: 'paired-cluster', node: cluster },
  ].map((side) => ({ ...side, learned: [] as LoadOutcome[], outcomes: [] as LoadOutcome[] }));
  for (const side of sides) side.learned = await load(side.node, `${side.label}-warm`, warm);
  const [alonePerCpu, clusteredPerCpu] = (await interleavedRounds(rounds, sides, async (side, round) => {
    const cpu0 = side.node.cpuSeconds();
    const outcomes = await load(side.node, `${side.label}-r${round}`, tickets, side.learned);
    // The window the rows measured apart read (they wait 400 ms for the Redis meters): the load's last games ending are in it.
    await new Promise((r) => setTimeout(r, 400));
    side.outcomes.push(...outcomes);
    return tally(outcomes).assigned / (side.node.cpuSeconds() - cpu0);
  })) as [number[], number[]];
  const ratios = alonePerCpu.map((perCpu, round) => clusteredPerCpu[round]! / perCpu);
  const row = (subject: string, metric: string, value: number, higherIsBetter: boolean): BenchRow => ({ group, subject, metric, value, higherIsBetter });
  return [
    ...ratios.flatMap((ratio, round) => [
      row(`round ${round + 1}`, 'embedded node: tickets per CPU s', alonePerCpu[round]!, true),
      row(`round ${round + 1}`, '1-node cluster: tickets per CPU s', clusteredPerCpu[round]!, true),
      row(`round ${round + 1}`, '1-node cluster ÷ embedded node, tickets per CPU s', ratio, true),
    ]),
    ...sides.flatMap((side) => {
      const { sent, assigned, doubled } = tally(side.outcomes);
      return [row(side.name, 'tickets lost (all rounds)', sent - assigned, false), row(side.name, 'tickets doubled (all rounds)', doubled, false)];
    }),
    row(`median of ${rounds} round${rounds === 1 ? '' : 's'}`, '1-node cluster ÷ embedded node, tickets per CPU s, interleaved rounds (median; goal ≥ 0.5)', median(ratios), true),
  ];
}
