import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { forwardingCommands, type CoordinatorCommands } from '../../src/coordinator/edges/commands.js';
import { EventHub } from '../../src/coordinator/edges/events.js';
import type { TicketSummary } from '../../src/coordinator/edges/view.js';
import type { FindRequest, TicketListener } from '../../src/coordinator/messages.js';
import { MatchmakingError } from '../../src/errors/index.js';
import { FindTraces } from '../../src/tracing/find-traces.js';
import { startTraceExport } from '../../src/tracing/trace-export.js';

/** The span book on its own: a fake core (commands, events, view) and a manual clock. */
function setup(maxOpen?: number) {
  const exporter = new InMemorySpanExporter();
  const { tracer } = startTraceExport(undefined, new SimpleSpanProcessor(exporter));
  const events = new EventHub();
  const states = new Map<string, TicketSummary['state']>();
  let clock = 1_000_000;
  const traces = new FindTraces({ tracer, view: { ticket: (id) => (states.has(id) ? ({ state: states.get(id) } as TicketSummary) : undefined) }, maxAgeMs: 60_000, maxOpen, now: () => clock });
  traces.attach(events);
  let onFind: (request: FindRequest) => void = () => {};
  const commands: CoordinatorCommands = { ...forwardingCommands({} as CoordinatorCommands), find: (request) => onFind(request) };
  const listener: TicketListener = { update: () => {}, fail: () => {} };
  const find = (ticketId: string, header: Record<string, string> = {}) =>
    traces.find(commands, { ticketId, template: 'duel', party: [{ playerId: `p-${ticketId}`, score: 1 }] } as unknown as FindRequest, listener, (name) => header[name], undefined, 'FindGames');
  return {
    exporter,
    events,
    states,
    traces,
    find,
    setFind: (f: (request: FindRequest) => void) => (onFind = f),
    advance: (ms: number) => (clock += ms),
    root: (ticketId: string) => exporter.getFinishedSpans().find((s) => s.name === 'FindGame' && s.attributes['gamefactory.ticket.id'] === ticketId),
  };
}

describe('the span book of finds', () => {
  it('a find the core says nothing more of is ended as untracked once older than its limit, when the next find comes', () => {
    const t = setup();
    t.states.set('a', 'pooled');
    t.find('a');
    expect(t.traces.open).toBe(1);
    t.advance(60_001);
    t.states.set('b', 'pooled');
    t.find('b');
    expect(t.root('a')?.attributes['gamefactory.outcome']).toBe('untracked');
    expect(t.traces.open).toBe(1);
  });

  it('holds at most maxOpen finds: the oldest is ended first', () => {
    const t = setup(2);
    for (const id of ['a', 'b', 'c']) {
      t.states.set(id, 'pooled');
      t.find(id);
    }
    expect(t.traces.open).toBe(2);
    expect(t.root('a')?.attributes['gamefactory.outcome']).toBe('untracked');
    expect(t.root('b')).toBeUndefined();
  });

  it('a resumed ticket keeps its one trace, with a resumed event; a refused resume leaves it as it was', () => {
    const t = setup();
    t.states.set('a', 'pooled');
    t.find('a');
    t.find('a');
    t.setFind(() => {
      throw new MatchmakingError('PERMISSION_DENIED', 'not yours');
    });
    expect(() => t.find('a')).toThrow('not yours');
    expect(t.traces.open).toBe(1);
    t.events.emit('findFinished', { ticketId: 'a', factory: 'duel', outcome: 'expired', elapsedMs: 5 });
    const root = t.root('a')!;
    expect(root.events.filter((e) => e.name === 'resumed')).toHaveLength(2);
    expect(root.attributes['gamefactory.outcome']).toBe('expired');
    expect(root.status.code).toBe(2); // ERROR
    expect(t.traces.open).toBe(0);
  });

  it('a retry answered from the assignments kept for retries is one short trace, marked a retry', () => {
    const t = setup();
    t.states.set('a', 'assigned');
    t.find('a');
    expect(t.root('a')?.attributes).toMatchObject({ 'gamefactory.outcome': 'assigned', 'gamefactory.retry': true });
    expect(t.traces.open).toBe(0);
  });

  it('the process stopping ends every open span', () => {
    const t = setup();
    t.states.set('a', 'placing');
    t.find('a');
    t.events.emit('placed', { factory: 'duel', serverId: 's', requestId: 'r1', ticketIds: ['a'] });
    t.traces.close();
    expect(t.root('a')?.attributes['gamefactory.outcome']).toBe('stopped');
    expect(t.exporter.getFinishedSpans().map((s) => s.name).sort()).toEqual(['FindGame', 'create game', 'match']);
  });

  it('a sampled-out caller (traceparent flags 00): nothing recorded, nothing held', () => {
    const t = setup();
    t.states.set('a', 'pooled');
    t.find('a', { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00' });
    expect(t.traces.open).toBe(0);
    expect(t.exporter.getFinishedSpans()).toHaveLength(0);
  });
});
