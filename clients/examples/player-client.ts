import { FindError, Matchmaker, type PartyMember } from '@gamefactory/matchmaking-client';
import { describeFailure, describeUpdate, failureAsJson, updateAsJson } from './describe-update.js';
import { parsePairs } from './plain-pairs.js';

export interface FindCommandOptions {
  readonly coordinator: string;
  readonly template: string;
  /** `id` or `id:score`, one per party member. */
  readonly player: string[];
  /** The score of every member given without one. */
  readonly score?: string;
  readonly partition: string[];
  readonly match: string[];
  /** `region=ms`, one per region. */
  readonly latency: string[];
  readonly timeout?: string;
  readonly json?: boolean;
}

/**
 * An example player client on @gamefactory/matchmaking-client: finds a game for a party and prints
 * every update until the assignment (as text, or JSON lines with `json`).
 */
export async function runExampleClient(opts: FindCommandOptions): Promise<void> {
  const request = {
    template: opts.template,
    party: parseParty(opts.player, opts.score),
    partition: parsePairs(opts.partition),
    matchable: parsePairs(opts.match),
    latenciesMs: parseLatencies(opts.latency),
  };
  const timeoutMs = opts.timeout === undefined ? undefined : Number(opts.timeout);
  if (timeoutMs !== undefined && !(Number.isInteger(timeoutMs) && timeoutMs > 0)) throw new Error(`--timeout: "${opts.timeout}" must be a whole number of milliseconds > 0`);
  const matchmaker = new Matchmaker({ addresses: opts.coordinator.split(',') });
  const ticket = matchmaker.find(request, { signal: timeoutMs === undefined ? undefined : AbortSignal.timeout(timeoutMs) });
  try {
    for await (const update of ticket) console.log(opts.json ? updateAsJson(ticket.id, update) : describeUpdate(update));
  } catch (error) {
    if (!(error instanceof FindError)) throw error;
    console.error(opts.json ? failureAsJson(error) : describeFailure(error));
    process.exitCode = 1;
  } finally {
    matchmaker.close();
  }
}

/** `alice bob:1500` with `--score 1400`: alice at 1400, bob at 1500; without `--score`, alice has none. */
export function parseParty(players: readonly string[], score: string | undefined): PartyMember[] {
  const fallback = score === undefined ? undefined : parseScore('--score', score);
  return players.map((entry) => {
    const at = entry.lastIndexOf(':');
    if (at < 0) return fallback === undefined ? { playerId: entry } : { playerId: entry, score: fallback };
    return { playerId: entry.slice(0, at), score: parseScore(`--player ${entry}`, entry.slice(at + 1)) };
  });
}

/** `eu=30 us-east=110`: measured round trips in milliseconds. */
export function parseLatencies(pairs: readonly string[]): Record<string, number> {
  return Object.fromEntries(
    pairs.map((pair) => {
      const at = pair.indexOf('=');
      const ms = Number(pair.slice(at + 1));
      if (at <= 0 || !Number.isInteger(ms) || ms < 0) throw new Error(`--latency: "${pair}" must be region=milliseconds (a whole number >= 0)`);
      return [pair.slice(0, at), ms];
    }),
  );
}

function parseScore(flag: string, raw: string): number {
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value)) throw new Error(`${flag}: "${raw}" is not a number`);
  return value;
}
