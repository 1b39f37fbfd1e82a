import { z } from 'zod';

/**
 * A recording of tickets as a coordinator took them in (or as the simulator made them), one JSON
 * object per line: a header, then events in time order. What a studio needs to tune its factories on
 * its own traffic, and nothing personal: ids are hashed by whoever records (the simulator's are
 * made up), and a ticket carries only what matching reads (scores, latencies, location, attributes).
 *
 *   {"format":"gamefactory-arrivals","version":1,"source":"..."}
 *   {"at":1234.5,"arrive":{"ticket":"3f9a..","template":"duel","partition":{"version":"v201"},
 *     "party":[{"player":"c01e..","score":1523.1}],"latencies":{"eu-west":31},...}}
 *   {"at":1500,"cancel":"3f9a.."}
 *   {"at":1750,"matched":["3f9a..","77b2.."]}
 *
 * `at` is ms since the recording began. `matched` events are what the recorded run did (a
 * coordinator records them; the simulator's export does too), so a replay with the same
 * configuration can be held against them.
 */
export const ARRIVAL_LOG_FORMAT = 'gamefactory-arrivals';
export const ARRIVAL_LOG_VERSION = 1;

const id = z.string().min(1).max(256);
const finite = z.number().finite();

const arrival = z.strictObject({
  ticket: id,
  template: z.string().min(1).max(256),
  /** Partitioning attributes as strings, the factory's name parts (e.g. version: "v201"). */
  partition: z.record(z.string(), z.string()).default({}),
  party: z.array(z.strictObject({ player: id, score: finite })).min(1).max(1024),
  /** A rating system's uncertainty of the party's score, when the score came from a ladder. */
  uncertainty: z.number().min(0).finite().optional(),
  latencies: z.record(z.string(), z.number().min(0).finite()).default({}),
  location: z.strictObject({ latitude: z.number().min(-90).max(90), longitude: z.number().min(-180).max(180) }).optional(),
  soft: z.record(z.string(), z.string()).default({}),
  preferredMaps: z.array(z.string()).default([]),
  vetoedMaps: z.array(z.string()).default([]),
  waitBudgetMs: z.number().positive().finite().optional(),
  maxLatencyMs: z.number().positive().finite().optional(),
});

const event = z.union([
  z.strictObject({ at: finite, arrive: arrival }),
  z.strictObject({ at: finite, cancel: id }),
  z.strictObject({ at: finite, matched: z.array(id).min(2) }),
]);

const header = z.strictObject({
  format: z.literal(ARRIVAL_LOG_FORMAT),
  version: z.literal(ARRIVAL_LOG_VERSION),
  /** Who recorded it and how: free text. */
  source: z.string().max(1000).default(''),
});

export type RecordedArrival = z.infer<typeof arrival>;
export type ArrivalEvent = z.infer<typeof event>;
export type ArrivalLogHeader = z.infer<typeof header>;

export interface ArrivalLog {
  readonly header: ArrivalLogHeader;
  /** In time order (ties keep the file's order). */
  readonly events: readonly ArrivalEvent[];
}

export class ArrivalLogError extends Error {
  override readonly name = 'ArrivalLogError';
}

/** Parses a recording; the error names the line and the field. Events out of time order are refused. */
export function parseArrivalLog(text: string, source = 'recording'): ArrivalLog {
  const lines = text.split('\n');
  let parsedHeader: ArrivalLogHeader | undefined;
  const events: ArrivalEvent[] = [];
  let last = -Infinity;
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] as string).trim();
    if (line === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new ArrivalLogError(`${source}:${i + 1}: not JSON: ${(error as Error).message}`);
    }
    const schema = parsedHeader === undefined ? header : event;
    const result = schema.safeParse(value);
    if (!result.success) {
      const issue = result.error.issues[0]!;
      const what = parsedHeader === undefined ? 'header' : 'event';
      throw new ArrivalLogError(`${source}:${i + 1}: invalid ${what} at ${issue.path.join('.') || '(top level)'}: ${issue.message}`);
    }
    if (parsedHeader === undefined) {
      parsedHeader = result.data as ArrivalLogHeader;
      continue;
    }
    const e = result.data as ArrivalEvent;
    if (e.at < last) throw new ArrivalLogError(`${source}:${i + 1}: at: ${e.at} is before the previous event (${last})`);
    last = e.at;
    events.push(e);
  }
  if (parsedHeader === undefined) throw new ArrivalLogError(`${source}: empty: no header line`);
  return { header: parsedHeader, events };
}

/** One line per event, the header first: what parseArrivalLog reads. */
export function* serializeArrivalLog(log: ArrivalLog): Generator<string> {
  yield JSON.stringify(log.header);
  for (const e of log.events) yield JSON.stringify(e);
}

/** The name of the factory an arrival selects: template/axis=value/..., axes in the recording's order. */
export function factoryKey(arrive: RecordedArrival): string {
  return [arrive.template, ...Object.entries(arrive.partition).map(([k, v]) => `${k}=${v}`)].join('/');
}
