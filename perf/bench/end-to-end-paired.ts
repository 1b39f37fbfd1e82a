/**
 * The end-to-end bench's two goals are ratios to a grpc-js echo floor: FindGames batched
 * tickets/s ≥ 0.65× the bidi echo's msgs/s, FindGame (one call per ticket) ≥ 0.7× the unary
 * echo's calls/s. Read once each, at different moments of a run, they moved with this shared
 * machine's load: batched 0.50–0.81× and FindGame 0.66–1.01× over six runs of the same code
 * (perf/PROFILE.md, "The edge against its echo floors, second pass"). Here the echo server (in its
 * own process) and a coordinator are started and warmed once, then each round measures the echo
 * and a fresh load of the same shape on the coordinator back to back, which goes first
 * alternating by round (interleaved-rounds.ts). The goal row is the median of the rounds' ratios.
 */
import type { BenchRow } from './bench-suite.js';
import { startCoordinator, type LoadShape, type TimedLoad } from './end-to-end-coordinator.js';
import { interleavedRounds, median } from './interleaved-rounds.js';
import { openEchoApart, type EchoResult, type Phase } from './transport-floor.bench.js';

/** One side's figures in one round, or the median of the rounds' for each. */
export interface RoundFigures {
  readonly perSecond: number;
  readonly p99Ms: number;
  /** The coordinator's CPU per ticket, or the echo server's per echo, in µs. */
  readonly serverCpuMicros: number;
  /** The load generator's CPU per ticket, or the echo client's per echo, in µs. */
  readonly clientCpuMicros: number;
}

export interface GoalPair {
  readonly group: string;
  /** The numerator: what the coordinator's rate is named in the rows, with its unit. */
  readonly ours: { readonly name: string; readonly rate: string; readonly shape: LoadShape };
  /** The denominator: which echo, named in the rows, with its unit. */
  readonly floor: { readonly name: string; readonly rate: string; readonly call: 'unary' | 'stream' };
  readonly goal: number;
}

export interface RoundSizes {
  readonly rounds: number;
  /** The coordinator's warm-up before the first round, in tickets. */
  readonly warm: number;
  /** Each round's load on the coordinator, in tickets. */
  readonly tickets: number;
  /** Each round's echo: a short warm-up on its call or stream, then the measured window. */
  readonly echo: Phase;
}

export interface PairedGoal {
  /** Each round's two rates and ratio, then the goal row. */
  readonly rows: BenchRow[];
  readonly ours: RoundFigures;
  readonly floor: RoundFigures;
}

const ourFigures = ({ report, cpuMicrosPerTicket, loadCpuMicrosPerTicket }: TimedLoad): RoundFigures => ({
  perSecond: report.matchesPerSecond,
  p99Ms: report.p99Ms,
  serverCpuMicros: cpuMicrosPerTicket,
  clientCpuMicros: loadCpuMicrosPerTicket,
});

const echoFigures = (echo: EchoResult): RoundFigures => ({
  perSecond: echo.perSecond,
  p99Ms: echo.latency.percentile(99),
  serverCpuMicros: echo.serverCpuMicrosPerEcho ?? Number.NaN,
  clientCpuMicros: echo.cpuMicrosPerEcho,
});

const medianFigures = (rounds: readonly RoundFigures[]): RoundFigures => ({
  perSecond: median(rounds.map((r) => r.perSecond)),
  p99Ms: median(rounds.map((r) => r.p99Ms)),
  serverCpuMicros: median(rounds.map((r) => r.serverCpuMicros)),
  clientCpuMicros: median(rounds.map((r) => r.clientCpuMicros)),
});

export async function pairedGoal({ group, ours, floor, goal }: GoalPair, { rounds, warm, tickets, echo: echoPhase }: RoundSizes): Promise<PairedGoal> {
  const echo = await openEchoApart();
  const coordinator = await startCoordinator(ours.shape).catch(async (error: unknown) => {
    await echo.close();
    throw error;
  });
  try {
    const measureEcho = async (phase: Phase) => echoFigures(await (floor.call === 'unary' ? echo.unary(phase) : echo.stream(phase)));
    // Both warmed once, untimed (JIT, connections, the coordinator's first games); the rounds' ids
    // (`paired-<mode>-r<round>-t<i>`, players and servers alike) never repeat the warm-up's or each other's.
    const runId = `paired-${ours.shape.mode}`;
    await measureEcho({ warmupMs: 1000, measureMs: echoPhase.measureMs });
    await coordinator.load(`${runId}-warm`, warm);
    const sides = ['floor', 'ours'] as const;
    const [floorRounds, ourRounds] = (await interleavedRounds(rounds, sides, async (side, round) => {
      if (side === 'floor') return measureEcho(echoPhase);
      const load = await coordinator.load(`${runId}-r${round}`, tickets);
      const { sent, assigned, errorsByCode } = load.report;
      if (assigned < sent) throw new Error(`${group}, round ${round + 1}: only ${assigned} of ${sent} assigned: ${JSON.stringify(errorsByCode)}`);
      return ourFigures(load);
    })) as [RoundFigures[], RoundFigures[]];
    const ratios = ourRounds.map((figures, round) => figures.perSecond / floorRounds[round]!.perSecond);
    const ratio = `${ours.name} ÷ ${floor.name}`;
    const row = (subject: string, metric: string, value: number): BenchRow => ({ group, subject, metric, value, higherIsBetter: true });
    return {
      rows: [
        ...ratios.flatMap((value, round) => [
          row(`round ${round + 1}`, `${ours.name}: ${ours.rate}`, ourRounds[round]!.perSecond),
          row(`round ${round + 1}`, `${floor.name}: ${floor.rate}`, floorRounds[round]!.perSecond),
          row(`round ${round + 1}`, ratio, value),
        ]),
        row(`median of ${rounds} round${rounds === 1 ? '' : 's'}`, `${ratio}, interleaved rounds (median; goal ≥ ${goal})`, median(ratios)),
      ],
      ours: medianFigures(ourRounds),
      floor: medianFigures(floorRounds),
    };
  } finally {
    await coordinator.stop();
    await echo.close();
  }
}
