import fc from 'fast-check';
import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { TalliedCounter, TalliedHistogram } from '../../src/metrics/tallies.js';

const BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300];
const factory = fc.constantFrom('diablo/difficulty=hard', 'duel/version=v201', 'a"quoted\\one\nline');
const outcome = fc.constantFrom('assigned', 'cancelled', 'expired', 'failed');
const seconds = fc.oneof(fc.double({ min: 0, max: 400, noNaN: true }), fc.constantFrom(...BUCKETS, 0));

/** The same events into prom-client's own metrics and into the tallies, each in its registry. */
function both(events: { factory: string; outcome: string; seconds: number }[]) {
  const theirs = new Registry();
  const ours = new Registry();
  const finds = new Counter({ name: 'finds_total', help: 'finds', labelNames: ['factory', 'outcome'], registers: [theirs] });
  const times = new Histogram({ name: 'time_seconds', help: 'time', labelNames: ['factory'], buckets: BUCKETS, registers: [theirs] });
  const placed = new Counter({ name: 'placed_total', help: 'placed', labelNames: ['factory'], registers: [theirs] });
  const tallyFinds = new TalliedCounter('finds_total', 'finds', ['factory', 'outcome'], [ours]);
  const tallyTimes = new TalliedHistogram('time_seconds', 'time', 'factory', BUCKETS, [ours]);
  const tallyPlaced = new TalliedCounter('placed_total', 'placed', ['factory'], [ours]);
  for (const e of events) {
    finds.inc({ factory: e.factory, outcome: e.outcome });
    tallyFinds.inc(e.factory, e.outcome);
    times.observe({ factory: e.factory }, e.seconds);
    tallyTimes.observe(e.factory, e.seconds);
    placed.inc({ factory: e.factory });
    tallyPlaced.inc(e.factory);
  }
  return { theirs, ours };
}

describe('tallied metrics', () => {
  it('expose what prom-client\'s Counter and Histogram expose for the same events, as text and as JSON', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({ factory, outcome, seconds }), { maxLength: 60 }), async (events) => {
        const { theirs, ours } = both(events);
        expect(await ours.metrics()).toBe(await theirs.metrics());
        expect(await ours.getMetricsAsJSON()).toEqual(await theirs.getMetricsAsJSON());
        theirs.resetMetrics();
        ours.resetMetrics();
        expect(await ours.metrics()).toBe(await theirs.metrics());
      }),
      { numRuns: 300 },
    );
  });

  it('the OpenMetrics exposition too', async () => {
    const { theirs, ours } = both([{ factory: 'f', outcome: 'assigned', seconds: 0.02 }]);
    const open = (r: Registry) => (r as unknown as Registry<typeof Registry.OPENMETRICS_CONTENT_TYPE>).setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
    open(theirs);
    open(ours);
    expect(await ours.metrics()).toBe(await theirs.metrics());
  });
});
