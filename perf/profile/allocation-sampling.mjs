/**
 * Preload for a coordinator under a bench: samples every allocation from the start, the ones
 * collected since included (a heap snapshot sees only what is live; RSS after a burst is mostly
 * what was allocated and not yet collected), and writes the profile when the process gets SIGTERM
 * (the benches stop their coordinator so). Summarise with allocations-by-function.ts.
 *
 *   BENCH_COORDINATOR_NODE_ARGS=--import=./perf/profile/allocation-sampling.mjs \
 *     npx tsx perf/bench/waiting-memory.bench.ts 100000 stream
 *
 * Writes allocations-<pid>.json in ALLOCATION_PROFILE_DIR (default: the working directory).
 * ALLOCATION_SAMPLING_OLD=1 leaves out what a scavenge collected: what is left is what reached the
 * old space (live, or garbage there until a mark-compact), the part of the allocations RSS shows.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';

const session = new Session();
session.connect();
session.post('HeapProfiler.enable');
session.post('HeapProfiler.startSampling', { samplingInterval: 8192, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: !process.env.ALLOCATION_SAMPLING_OLD });
for (const signal of ['SIGTERM', 'SIGINT']) process.prependListener(signal, () => {
  session.post('HeapProfiler.stopSampling', (error, result) => {
    if (error) return console.error('allocation sampling:', error.message);
    writeFileSync(join(process.env.ALLOCATION_PROFILE_DIR ?? '.', `allocations-${process.pid}.json`), JSON.stringify(result.profile));
  });
});
