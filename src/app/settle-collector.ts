import { constants, performance, PerformanceObserver } from 'node:perf_hooks';
import v8 from 'node:v8';
import vm from 'node:vm';
import { forwardingCommands, type CoordinatorCommands } from '../coordinator/edges/commands.js';
import type { Log } from '../coordinator/ports.js';
import { SettleCollectionPolicy, type HeapReading, type SettleCollectionSettings } from './settle-collection-policy.js';

/** What one settle collection did, for metrics and the log (old generation, see HeapReading). */
export interface SettleCollection {
  readonly pauseMs: number;
  readonly before: HeapReading;
  readonly after: HeapReading;
}

export interface SettleCollector {
  /** The commands the transport calls, each find counted as an arrival (one increment: nothing else on the hot path). */
  counting(commands: CoordinatorCommands): CoordinatorCommands;
  stop(): void;
}

/** How often the policy looks: a collection comes at most this much after the quiet window ends. */
const TICK_MS = 250;

/**
 * V8's `gc` without `--expose-gc` on node's command line: the gc extension is installed in
 * contexts created while the flag is set, so a fresh context hands us its function. In Node 20's
 * V8 (11.3) `gc()` is a full, synchronous, precise mark-compact; its options object knows only
 * `type: 'minor'` and `execution: 'async'` (`{ type: 'major' }` alone reads as a truthy legacy
 * argument and runs a *minor* collection), so we call it with none.
 */
export function exposeGc(): (() => void) | undefined {
  const existing = (globalThis as { gc?: unknown }).gc;
  if (typeof existing === 'function') return existing as () => void;
  try {
    v8.setFlagsFromString('--expose-gc');
    const gc: unknown = vm.runInNewContext('gc');
    return typeof gc === 'function' ? (gc as () => void) : undefined;
  } catch {
    return undefined;
  } finally {
    v8.setFlagsFromString('--no-expose-gc'); // later contexts (vm, workers' own) get no `gc` global
  }
}

/**
 * One mark-compact that moves every movable object. A plain full collection frees the burst's
 * garbage but leaves it as holes in pages that still hold live tickets (old space 140 MB committed
 * for 83 MB used after 100k arrivals), and pages with holes are not given back; V8's own
 * compaction heuristics move at most a few MB a collection, even when reducing memory. The flag is
 * read by the collector as it picks pages to evacuate, so it is set for this collection only.
 */
function compacting(gc: () => void): void {
  v8.setFlagsFromString('--compact-on-every-full-gc');
  try {
    gc();
  } finally {
    v8.setFlagsFromString('--no-compact-on-every-full-gc');
  }
}

const YOUNG = new Set(['new_space', 'new_large_object_space']);

function oldGeneration(): HeapReading {
  let committedBytes = 0;
  let usedBytes = 0;
  for (const space of v8.getHeapSpaceStatistics()) {
    if (YOUNG.has(space.space_name)) continue;
    committedBytes += space.space_size;
    usedBytes += space.space_used_size;
  }
  return { committedBytes, usedBytes };
}

/**
 * Runs the settle policy against this process: counts finds, looks every 250 ms, learns of V8's
 * own mark-compacts from `gc` performance entries, and collects when the policy says so.
 * Undefined when this V8 will not give us a `gc` function (logged): the process runs as without it.
 */
export function startSettleCollector(settings: SettleCollectionSettings, log: Log, onCollected?: (collection: SettleCollection) => void): SettleCollector | undefined {
  const gc = exposeGc();
  if (!gc) {
    log.warn({}, 'settle collection off: this Node/V8 gives no gc function without --expose-gc');
    return undefined;
  }
  const policy = new SettleCollectionPolicy(settings, Date.now(), oldGeneration());
  let arrivals = 0;
  // Entries come after the fact, our own collection's too (it sets the same base again).
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if ((entry as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) return policy.markCompacted(oldGeneration());
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  const timer = setInterval(() => {
    const before = oldGeneration();
    if (!policy.tick(Date.now(), arrivals, before)) return;
    const started = performance.now();
    compacting(gc);
    const pauseMs = performance.now() - started;
    const after = oldGeneration();
    policy.collected(Date.now(), pauseMs, after, before);
    const mb = (bytes: number) => Math.round(bytes / 1e6);
    log.info(
      { pauseMs: Math.round(pauseMs), oldMB: `${mb(before.committedBytes)} (${mb(before.usedBytes)} used) -> ${mb(after.committedBytes)} (${mb(after.usedBytes)} used)` },
      'arrivals settled: full garbage collection',
    );
    onCollected?.({ pauseMs, before, after });
  }, TICK_MS);
  timer.unref();
  return {
    counting: (commands) => ({
      ...forwardingCommands(commands),
      find: (request, listener) => {
        arrivals++;
        commands.find(request, listener);
      },
    }),
    stop() {
      clearInterval(timer);
      observer.disconnect();
    },
  };
}
