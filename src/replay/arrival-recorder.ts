import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { displayValue } from '../attributes/attribute-value.js';
import type { CoordinatorConfig } from '../config/config.js';
import { forwardingCommands, type CoordinatorCommands } from '../coordinator/edges/commands.js';
import type { CoordinatorEvents } from '../coordinator/edges/events.js';
import type { FindRequest } from '../coordinator/messages.js';
import { ARRIVAL_LOG_FORMAT, ARRIVAL_LOG_VERSION, type ArrivalEvent } from './arrival-log.js';

/**
 * `gamefactory start --record FILE` (off by default): the competitive tickets a coordinator takes
 * in, as a recording `gamefactory replay` runs through other configurations (arrival-log.ts).
 * An edge beside the core: it sees each find the core accepted (what matching reads of it: scores,
 * latencies, maps, the ticket's own limits), each cancel that ended a ticket, and each game a batch
 * formed (which tickets, for the recorded waits), and appends a line for each.
 *
 * Nothing personal beyond ids, and those hashed: SHA-256 of a salt drawn per recording and the id,
 * so one player's tickets can be followed within a recording and in no other. Tickets of templates
 * that are not competitive, and tickets without a score (on a ladder, whose ratings the core looks
 * up), are not recorded; `skipped` counts the latter.
 */
export class ArrivalRecorder {
  private readonly salt = randomBytes(16);
  private readonly out: WriteStream;
  private readonly startedAt: number;
  private unsubscribe: (() => void) | undefined;
  /** Tickets the recording has, by their own id: a cancel or a game of another is not written. */
  private readonly recorded = new Set<string>();
  skipped = 0;

  constructor(
    path: string,
    /** The configuration running now (a live reload may change which templates are competitive). */
    private readonly config: () => CoordinatorConfig,
    private readonly now: () => number,
  ) {
    this.out = createWriteStream(path, { flags: 'w' });
    this.startedAt = now();
    this.write({ format: ARRIVAL_LOG_FORMAT, version: ARRIVAL_LOG_VERSION, source: `gamefactory --record, started ${new Date(this.startedAt).toISOString()}` });
  }

  /** The commands the transport calls, recording what the core accepted. */
  wrap(commands: CoordinatorCommands): CoordinatorCommands {
    return {
      ...forwardingCommands(commands),
      find: (request, listener) => {
        commands.find(request, listener); // throws when refused: nothing is recorded then
        this.arrived(request);
      },
      cancel: (ticketId, caller) => {
        const cancelled = commands.cancel(ticketId, caller);
        if (cancelled && this.recorded.delete(ticketId)) this.append({ at: this.at(), cancel: this.hash(ticketId) });
        return cancelled;
      },
    };
  }

  /** Games formed, from the core's events. */
  attach(events: CoordinatorEvents): void {
    this.unsubscribe = events.on('competitiveGameFormed', (e) => {
      const ids = e.ticketIds.filter((id) => this.recorded.delete(id));
      if (ids.length >= 2) this.append({ at: this.at(), matched: ids.map((id) => this.hash(id)) });
    });
  }

  async close(): Promise<void> {
    this.unsubscribe?.();
    this.out.end();
    await once(this.out, 'finish');
  }

  private arrived(request: FindRequest): void {
    const { templates } = this.config();
    const template = templates.find((t) => t.name === request.template) ?? (request.template === '' && templates.length === 1 ? templates[0] : undefined);
    if (template?.strategy.kind !== 'competitive') return;
    if (this.recorded.has(request.ticketId)) return; // a resumed ticket arrived once
    if (request.party.some((p) => p.score === undefined)) {
      this.skipped += 1;
      return;
    }
    this.recorded.add(request.ticketId);
    this.append({
      at: this.at(),
      arrive: {
        ticket: this.hash(request.ticketId),
        template: template.name,
        partition: Object.fromEntries([...request.partition].map(([k, v]) => [k, displayValue(v)])),
        party: request.party.map((p) => ({ player: this.hash(p.playerId), score: p.score as number })),
        latencies: Object.fromEntries(request.latenciesMs),
        soft: {},
        preferredMaps: [...request.preferredMaps],
        vetoedMaps: [...request.vetoedMaps],
        ...(request.waitBudgetMs !== undefined && { waitBudgetMs: request.waitBudgetMs }),
        ...(request.maxLatencyMs !== undefined && { maxLatencyMs: request.maxLatencyMs }),
      },
    });
  }

  private at(): number {
    return this.now() - this.startedAt;
  }

  private hash(id: string): string {
    return createHash('sha256').update(this.salt).update(id).digest('hex').slice(0, 24);
  }

  private append(event: ArrivalEvent): void {
    this.write(event);
  }

  private write(value: object): void {
    this.out.write(`${JSON.stringify(value)}\n`);
  }
}
