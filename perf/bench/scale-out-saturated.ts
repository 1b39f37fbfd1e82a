/**
 * The scale-out bench's second projection: each node busy, one at a time. On this machine every
 * node, load process and Redis share two cores, so when the load runs through all n nodes at once
 * each node gets a fraction of a core and sees a fraction of the tickets per turn of its event
 * loop; a node's CPU per ticket grows as its batches shrink (a lone node: 2,174 tickets per CPU s
 * with 16 finds in flight, 4,494 with 256; an embedded node at 100 finds/s spends ~20x its CPU per
 * ticket at full load). "Tickets ÷ the busiest node's CPU seconds" then compares a busy lone node
 * with n idle-ish ones. Here one load process at a time drives one node as hard as the lone node
 * was driven (the rest of the cluster running, its shards, keeper, Redis and all), so every node's
 * CPU is read at the batching it would have with a core of its own:
 *
 *   node j's work = its CPU over every phase − its idle rate × the phases that were not its own
 *   projected capacity = the phases' tickets ÷ the largest node's work
 *
 * over `rounds` rounds of one phase per node (SCALE_OUT_SATURATED_ROUNDS, default 3)
 *
 * (idle: what a node spends per second with no load, its keeper, beats and boards, read before the
 * phases; running all nodes at once a node pays it once, not once per phase). With finds to the
 * owner, phase i sends the factories node i owns (by the routes the warm-up learned) through node
 * i: what a cluster whose clients follow route hints asks of each node. With finds to any node,
 * phase i sends every factory through node i: node i relays (n−1)/n of them and the owners' share
 * of their work is counted on the owners; its load's game servers all sit on node i, so the other
 * owners' games there cross the relay too (more than when every node has servers of its own).
 */
import type { BenchRow } from './bench-suite.js';
import type { LoadOutcome, LoadPlan } from './scale-out-load.js';
import { shardMoves } from './scale-out-diagnostics.js';
import { redisCpuSeconds, runLoadProcess, tally, type BenchNode } from './scale-out-nodes.js';

export interface SaturatedProjection {
  /** The phases' tickets ÷ the largest node's work. */
  readonly ticketsPerBusiestCpu: number;
  /** The same ÷ the mean node's work: every node gets the same load here, so the gap between the two is noise (or a node that costs more). */
  readonly ticketsPerMeanCpu: number;
  readonly rows: BenchRow[];
}

/** What drives node i: a warm-up (unmeasured), then the measured load. */
export interface BusyPhase {
  readonly warm: LoadPlan;
  readonly measured: LoadPlan;
}

/** `plan(i)`: the phase that drives node i, or undefined when it owns nothing loaded (finds to the owner). */
export async function saturatedProjection(
  nodes: readonly BenchNode[],
  redisPorts: readonly number[],
  plan: (node: number) => BusyPhase | undefined,
  row: (subject: string, metric: string, value: number, higherIsBetter: boolean) => BenchRow,
  rounds: number,
): Promise<SaturatedProjection> {
  const cpuNow = () => nodes.map((n) => n.cpuSeconds());
  // Idle: read once what the load before has left behind (games ending, collections) is done.
  await new Promise((r) => setTimeout(r, 3_000));
  const idleFrom = cpuNow();
  const idleStarted = performance.now();
  await new Promise((r) => setTimeout(r, 3_000));
  const idleSeconds = (performance.now() - idleStarted) / 1000;
  const idle = cpuNow().map((c, j) => (c - idleFrom[j]!) / idleSeconds);

  const phases: { node: number; seconds: number; cpu: number[]; outcome: LoadOutcome; moves: string; weights: string }[] = [];
  const redis0 = await redisCpuSeconds(redisPorts);
  // Rounds of phases: one phase's CPU per ticket varied by ±25% between runs on this machine, and
  // the projection divides by the largest node's work, which noise only makes larger; summed over
  // rounds a node's work is an average of its phases.
  for (let round = 0, i = 0; round < rounds; i = (i + 1) % nodes.length, round += i === 0 ? 1 : 0) {
    const phase = plan(i);
    if (!phase) continue;
    const load = { ...phase.measured, runId: `${phase.measured.runId}-r${round}` };
    // Warm again first: a node idle through the phases before its own paid for it in the first
    // seconds of its phase (later phases cost up to 60% more than the first, in one run of four).
    await runLoadProcess({ ...phase.warm, runId: `${phase.warm.runId}-r${round}` });
    const before = cpuNow();
    const movesBefore = shardMoves(nodes);
    const started = performance.now();
    const window0 = process.hrtime.bigint() / 1000n;
    const outcome = await runLoadProcess(load);
    const seconds = (performance.now() - started) / 1000;
    if (process.env.SCALE_OUT_CPU_PROF) console.error(`measured window of node ${i}'s phase (pid ${nodes[i]!.pid}): PROFILE_FROM_US=${window0} PROFILE_TO_US=${process.hrtime.bigint() / 1000n}`);
    await new Promise((r) => setTimeout(r, 200));
    phases.push({ node: i, seconds, cpu: cpuNow().map((c, j) => c - before[j]!), outcome, weights: load.weights?.join(',') ?? 'even', moves: movesBefore === shardMoves(nodes) ? 'none' : `${movesBefore} -> ${shardMoves(nodes)}` });
  }
  const redisCpu = (await redisCpuSeconds(redisPorts)).reduce((sum, s, k) => sum + s - redis0[k]!, 0);
  if (process.env.SCALE_OUT_VERBOSE) {
    console.error(`each node busy in turn: idle CPU ms/s ${idle.map((x) => (1000 * x).toFixed(0)).join(' ')}`);
    for (const p of phases) console.error(`  phase of node ${p.node}: ${p.seconds.toFixed(2)} s, ${p.outcome.assigned} tickets (${p.outcome.relayed} relayed), CPU s per node ${p.cpu.map((c) => c.toFixed(2)).join(' ')}; weights ${p.weights}; shard moves ${p.moves}; slowest (partition: ms) ${p.outcome.slowest.map((t) => `${t.partition}: ${t.waitedMs}`).join(', ')}`);
  }

  const work = nodes.map((_, j) => phases.reduce((sum, p) => sum + p.cpu[j]! - (p.node === j ? 0 : idle[j]! * p.seconds), 0));
  const { assigned, sent, doubled } = tally(phases.map((p) => p.outcome));
  const busiest = Math.max(...work);
  const rows = [
    row('each node busy in turn', 'projected capacity: tickets per busiest node CPU s (its work over all phases, less idle outside its own)', assigned / busiest, true),
    row('each node busy in turn', 'projected Redis capacity: tickets per Redis CPU s (all masters)', assigned / redisCpu, true),
    row('each node busy in turn', 'tickets lost', sent - assigned, false),
    row('each node busy in turn', 'tickets doubled', doubled, false),
    ...nodes.flatMap((_, j) => [
      row(`node ${j}`, 'each node busy in turn: its work (CPU s, less idle outside its own phase)', work[j]!, false),
      row(`node ${j}`, 'each node busy in turn: tickets of its own phases', phases.reduce((n, p) => n + (p.node === j ? p.outcome.assigned : 0), 0), false),
      row(`node ${j}`, 'idle CPU ms per s', 1000 * idle[j]!, false),
    ]),
  ];
  return { ticketsPerBusiestCpu: assigned / busiest, ticketsPerMeanCpu: (assigned * work.length) / work.reduce((a, b) => a + b, 0), rows };
}
