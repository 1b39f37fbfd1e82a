/** One chaos run read through the contract: the counts of the table, as one line. */
import { ContractMonitor, type ContractOptions, type Observation, type Violation } from '../../src/cluster/contract/index.js';

export interface RunFacts {
  readonly scenario: string;
  readonly run: number;
  readonly runs: number;
  readonly seed: number;
  /** When the load started (shard moves count from here). */
  readonly loadStartAt: number;
  /** When the fault struck, if it was a kill (the last assignment after it is measured). */
  readonly killAt?: number;
}

export interface RunSummary {
  readonly finds: number;
  readonly assigned: number;
  readonly observations: number;
  readonly lost: number;
  readonly toldWithoutSeat: number;
  readonly seatNeverArrived: number;
  /** Of the seats that came after their assignment was told: the median and the largest lag, in ms. */
  readonly lateSeatLagMs: { readonly p50: number; readonly max: number };
  readonly doubled: number;
  readonly twoTickets: number;
  readonly overfull: number;
  readonly overSlots: number;
  readonly unanswered: number;
  readonly fifoInversions: number;
  readonly wrongPositions: number;
  readonly fenceRegressions: number;
  readonly failoverLate: number;
  readonly lastAssignmentAfterKillMs?: number;
  readonly shardMoves: number;
  /** A few violations of each rule, for a reader who wants the ids. */
  readonly examples: Violation[];
}

export function summarise(observations: readonly Observation[], options: ContractOptions, facts: RunFacts, finishAt: number): RunSummary {
  const monitor = new ContractMonitor(options);
  const violations: Violation[] = [];
  const tickets = new Set<string>();
  const assigned = new Map<string, number>();
  const liveAtKill = new Set<string>();
  let shardMoves = 0;
  for (const o of observations) {
    violations.push(...monitor.observe(o));
    if (o.kind === 'find') tickets.add(o.ticketId);
    if (o.kind === 'assigned' && !assigned.has(o.ticketId)) assigned.set(o.ticketId, o.at);
    if (o.kind === 'fence' && o.at >= facts.loadStartAt) shardMoves++;
    if (o.kind === 'find' && facts.killAt !== undefined && o.at <= facts.killAt) liveAtKill.add(o.ticketId);
    if ((o.kind === 'assigned' || o.kind === 'ended') && facts.killAt !== undefined && o.at <= facts.killAt) liveAtKill.delete(o.ticketId);
  }
  violations.push(...monitor.finish(finishAt));
  const lags = [...monitor.lateSeatLagsMs].sort((a, b) => a - b);
  const count = (rule: string, what?: string) => violations.filter((v) => v.rule === rule && (what === undefined || v.what === what)).length;
  const players = (what: string) => new Set(violations.filter((v) => v.what === what).map((v) => v.ids.player)).size;
  const lastAfterKill = facts.killAt === undefined ? undefined : Math.max(0, ...[...liveAtKill].map((t) => (assigned.get(t) ?? 0) - facts.killAt!));
  const examples: Violation[] = [];
  for (const v of violations) if (examples.filter((e) => e.rule === v.rule && e.what === v.what).length < 3) examples.push(v);
  return {
    finds: tickets.size,
    assigned: assigned.size,
    observations: observations.length,
    lost: count('no-lost'),
    toldWithoutSeat: count('told-has-seat', 'told without seat'),
    seatNeverArrived: count('told-has-seat', 'seat never arrived'),
    lateSeatLagMs: { p50: lags[Math.floor(lags.length / 2)] ?? 0, max: lags.at(-1) ?? 0 },
    doubled: players('seated in two games'),
    twoTickets: count('one-live-ticket', 'two live tickets') + count('one-live-ticket', 'assigned twice'),
    overfull: count('game-size'),
    overSlots: count('server-slots'),
    unanswered: count('answered-in-time'),
    fifoInversions: count('fifo', 'inversion'),
    wrongPositions: count('fifo', 'wrong position'),
    fenceRegressions: count('fence-monotonic'),
    failoverLate: count('failover-bound'),
    lastAssignmentAfterKillMs: lastAfterKill,
    shardMoves,
    examples,
  };
}

export function summaryLine(facts: RunFacts, s: RunSummary): string {
  const after = s.lastAssignmentAfterKillMs === undefined ? '-' : `${s.lastAssignmentAfterKillMs} ms`;
  return (
    `chaos ${facts.scenario} run ${facts.run}/${facts.runs} seed ${facts.seed}: finds ${s.finds} assigned ${s.assigned} | ` +
    `lost ${s.lost} | told-without-seat ${s.toldWithoutSeat} (never arrived ${s.seatNeverArrived}; the others late by p50 ${s.lateSeatLagMs.p50} ms, max ${s.lateSeatLagMs.max} ms) | doubled ${s.doubled} (two tickets ${s.twoTickets}) | ` +
    `overfull games ${s.overfull} (servers over slots ${s.overSlots}) | unanswered calls ${s.unanswered} | fifo inversions ${s.fifoInversions} (wrong positions ${s.wrongPositions}) | ` +
    `last assignment after kill ${after} (late ${s.failoverLate}) | shard moves ${s.shardMoves} (fence regressions ${s.fenceRegressions})`
  );
}
