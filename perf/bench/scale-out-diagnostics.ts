/**
 * What the scale-out bench prints about a measured run with SCALE_OUT_VERBOSE=1, to tell a slow
 * or wrong run's cause: how batched each node's work was (system calls and sleeps per ticket it
 * matched: a node that sleeps once per few tickets pays its per-wake costs on few), shard moves
 * and why, warnings, event-loop lag, settle collections, and the doubled tickets' kind.
 */
import type { LoadOutcome } from './scale-out-load.js';
import type { BenchNode } from './scale-out-nodes.js';

/** Each node's shards gained and lost so far, from its log. */
export function shardMoves(nodes: readonly BenchNode[]): string {
  return nodes.map((n) => `${n.log.match(/now owns a shard/g)?.length ?? 0}+/${n.log.match(/no longer owns a shard/g)?.length ?? 0}-`).join(' ');
}

interface Measured {
  /** System calls and sleeps of each node over the measured window. */
  readonly sys: readonly { reads: number; writes: number; sleeps: number }[];
  /** Tickets each node's matchers handled in it. */
  readonly matched: readonly number[];
  readonly outcomes: readonly LoadOutcome[];
  /** Players and how many seats each was ordered. */
  readonly seats: ReadonlyMap<string, number>;
  readonly moves0: string;
}

export async function diagnose(label: string, nodes: readonly BenchNode[], m: Measured): Promise<void> {
  const say = (line: string) => console.error(`${label}: ${line}`);
  const per = (v: number, i: number) => (v / Math.max(1, m.matched[i] ?? 1)).toFixed(3);
  say(`reads / writes / sleeps per ticket each node matched: ${m.sys.map((x, i) => `${per(x.reads, i)} / ${per(x.writes, i)} / ${per(x.sleeps, i)}`).join(', ')}`);
  say(`shards gained+/lost- per node before ${m.moves0}, after ${shardMoves(nodes)}`);
  const count = (pattern: RegExp) => {
    const counts = new Map<string, number>();
    for (const n of nodes) for (const [, key] of n.log.matchAll(pattern)) counts.set(key!, (counts.get(key!) ?? 0) + 1);
    return JSON.stringify([...counts]);
  };
  say(`shards lost, by reason: ${count(/"reason":"([^"]+)"[^\n]*"msg":"this node no longer owns a shard"/g)}`);
  say(`warnings: ${count(/"level":(?:40|50)[^\n]*"msg":"([^"]+)"/g)}`);
  for (const n of nodes) {
    const port = /"metrics":"127\.0\.0\.1:(\d+)"/.exec(n.log)?.[1];
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const lag = text.split('\n').filter((l) => /^nodejs_eventloop_lag_(max|p99)_seconds/.test(l)).join(', ');
    const settles = [...n.log.matchAll(/"pauseMs":(\d+)[^\n]*arrivals settled/g)].map((x) => x[1]).join(', ');
    say(`node ${n.address}: ${lag}; settle collections (ms): ${settles || 'none'}`);
  }
  const twice = [...m.seats].filter(([, k]) => k > 1);
  say(`answered twice ${m.outcomes.reduce((k, o) => k + o.answeredTwice, 0)}, seated twice ${twice.length} (e.g. ${twice.slice(0, 3).map(([p]) => p).join(' ')}), errors ${JSON.stringify(m.outcomes.map((o) => o.errors))}`);
}
