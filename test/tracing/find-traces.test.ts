import { credentials, Metadata } from '@grpc/grpc-js';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { hrTimeToMilliseconds } from '@opentelemetry/core';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startCoordinatorProcess, type RunningCoordinator } from '../../src/app/coordinator-process.js';
import { parseConfig } from '../../src/config/load.js';
import { silentLog } from '../../src/coordinator/ports.js';
import { MatchmakerClient, type FindGameUpdate } from '../../src/generated/gamefactory/v1/matchmaker.js';
import { startTraceExport, type TraceExport } from '../../src/tracing/trace-export.js';
import { eventually } from '../integration/harness.js';
import { findGame, findGameRequest, type FindOptions } from '../support/find-game.js';
import { GameServerConnection, type CreateDecision } from '../support/game-server-connection.js';

/**
 * The traces of finds over real gRPC on loopback: a real coordinator (LMDB in a temp dir) whose
 * spans go to an in-memory exporter, a game server on the SDK, and FindGame calls that carry a
 * W3C traceparent as a client instrumented with OpenTelemetry sends it.
 */
const YAML = `
placement: { policy: fill, createTimeoutMs: 5000, maxQueuedPerFactory: 100, ticketTtlSeconds: 30 }
servers: { keepaliveIntervalMs: 1000 }
factories:
  - name: diablo
    partitioning: { version: [v201] }
    matchable: [act]
    cooperative: { maxPlayers: 4, order: fill, reservationMs: 2000 }
  - name: duel
    partitioning: { version: [v201] }
    competitive:
      teams: 2
      teamSize: 1
      batch: { maxTickets: 2, intervalMs: 20 }
      expansion: [{ afterSeconds: 0, maxScoreGap: 100 }]
`;

// The caller's span, as an instrumented client puts it in the call's metadata.
const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
const TRACEPARENT = `00-${CALLER_TRACE}-${CALLER_SPAN}-01`;

const act1 = (ticketId: string, players: string[]): FindOptions => ({ ticketId, template: 'diablo', party: players.map((playerId) => ({ playerId })), partition: { version: 'v201' }, matchable: { act: 1 } });
const duel = (ticketId: string, playerId: string, score: number): FindOptions => ({ ticketId, template: 'duel', party: [{ playerId, score }], partition: { version: 'v201' } });

const withTraceparent = (traceparent: string) => {
  const metadata = new Metadata();
  metadata.set('traceparent', traceparent);
  return metadata;
};

describe('traces of finds (OpenTelemetry, in-memory exporter, gRPC on loopback)', () => {
  let exporter: InMemorySpanExporter;
  let traces: TraceExport;
  let running: RunningCoordinator;
  let dataDir: string;
  let client: MatchmakerClient;
  let server: GameServerConnection;
  /** What the game server does with each CreateGame order, in turn; `create` once they are used up. */
  let decisions: CreateDecision[];

  beforeEach(async () => {
    exporter = new InMemorySpanExporter();
    traces = startTraceExport(undefined, new SimpleSpanProcessor(exporter));
    dataDir = mkdtempSync(join(tmpdir(), 'gamefactory-traces-'));
    running = await startCoordinatorProcess({ config: parseConfig(YAML, 'test.yaml'), listen: '127.0.0.1:0', metricsListen: '127.0.0.1:0', dataDir, log: silentLog, traces });
    client = new MatchmakerClient(`127.0.0.1:${running.grpcPort}`, credentials.createInsecure());
    decisions = [];
    server = new GameServerConnection(`127.0.0.1:${running.grpcPort}`, { serverId: 's1', endpoint: 's1.example:7777', maxGames: 10, attributes: { version: 'v201' } }, { autoJoin: true, decide: () => decisions.shift() ?? 'create' });
    await server.connect();
  });

  afterEach(async () => {
    server.close();
    client.close();
    await running.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const spans = () => exporter.getFinishedSpans();
  const rootOf = (ticketId: string) => spans().find((s) => s.name === 'FindGame' && s.attributes['gamefactory.ticket.id'] === ticketId);
  const childrenOf = (root: ReadableSpan) => spans().filter((s) => s.parentSpanContext?.spanId === root.spanContext().spanId);
  const named = (list: ReadableSpan[], name: string) => list.filter((s) => s.name === name);
  const ms = (s: ReadableSpan, end: 'startTime' | 'endTime') => hrTimeToMilliseconds(s[end]);
  /** The exporter has a find's root span (ended last of its tree). */
  const rootEnded = async (ticketId: string) => {
    await eventually(() => rootOf(ticketId) !== undefined);
    return rootOf(ticketId)!;
  };

  it('one FindGame: a root span under the caller\'s traceparent, a match child, then a create-game child until the server confirms', async () => {
    const { assignment } = await new Promise<{ assignment: unknown }>((resolve, reject) => {
      const call = client.findGame(findGameRequest(act1('t-1', ['alice', 'bob'])), withTraceparent(TRACEPARENT));
      call.on('data', (u: FindGameUpdate) => u.update?.$case === 'assignment' && resolve({ assignment: u.update.value }));
      call.on('error', reject);
    });
    expect(assignment).toMatchObject({ serverId: 's1', created: true });

    const root = await rootEnded('t-1');
    // The tree: root (child of the caller's span, same trace) -> match, create game.
    expect(root.kind).toBe(SpanKind.SERVER);
    expect(root.spanContext().traceId).toBe(CALLER_TRACE);
    expect(root.parentSpanContext?.spanId).toBe(CALLER_SPAN);
    expect(root.parentSpanContext?.isRemote).toBe(true);
    expect(root.attributes).toMatchObject({
      'rpc.system': 'grpc',
      'rpc.service': 'gamefactory.v1.Matchmaker',
      'rpc.method': 'FindGame',
      'gamefactory.factory': 'diablo/version=v201',
      'gamefactory.outcome': 'assigned',
      'gamefactory.party.size': 2,
      'gamefactory.template': 'diablo',
    });
    expect(root.status.code).toBe(SpanStatusCode.UNSET);
    const children = childrenOf(root);
    expect(children.map((s) => s.name).sort()).toEqual(['create game', 'match']);
    const [match] = named(children, 'match');
    const [creation] = named(children, 'create game');
    for (const child of children) expect(child.spanContext().traceId).toBe(CALLER_TRACE);
    expect(match!.attributes['gamefactory.match.into']).toBe('create');
    expect(creation!.attributes).toMatchObject({ 'gamefactory.server.id': 's1', 'gamefactory.factory': 'diablo/version=v201' });
    const order = server.orders.find((o) => o.order?.$case === 'createGame');
    expect(order?.order?.$case === 'createGame' && creation!.attributes['gamefactory.request.id']).toBe(order?.order?.$case === 'createGame' && order.order.value.requestId);
    // In time: arrival <= match <= creation <= the end of the root.
    expect(ms(match!, 'startTime')).toBeGreaterThanOrEqual(ms(root, 'startTime'));
    expect(ms(match!, 'endTime')).toBeLessThanOrEqual(ms(creation!, 'startTime'));
    expect(ms(creation!, 'endTime')).toBeLessThanOrEqual(ms(root, 'endTime'));
    // Nothing else was traced.
    expect(spans()).toHaveLength(3);
    console.log(`span tree of one FindGame:\n${tree(spans())}`);
  });

  it('a find seated in an open game: its own trace (no traceparent), matching only', async () => {
    await findGame(client, act1('t-1', ['alice']));
    await rootEnded('t-1');
    await findGame(client, act1('t-2', ['carol']));
    const root = await rootEnded('t-2');
    expect(root.parentSpanContext).toBeUndefined();
    expect(root.spanContext().traceId).not.toBe(rootOf('t-1')!.spanContext().traceId);
    const children = childrenOf(root);
    expect(children.map((s) => s.name)).toEqual(['match']);
    expect(children[0]!.attributes['gamefactory.match.into']).toBe('seat');
  });

  it('a creation refused by its server: the first create-game span ends in error, the order placed again gets a second', async () => {
    decisions = ['fail'];
    await findGame(client, act1('t-1', ['alice']));
    const root = await rootEnded('t-1');
    const creations = named(childrenOf(root), 'create game').sort((a, b) => ms(a, 'startTime') - ms(b, 'startTime'));
    expect(creations).toHaveLength(2);
    expect(creations[0]!.status).toMatchObject({ code: SpanStatusCode.ERROR });
    expect(creations[0]!.attributes['gamefactory.taken_back']).toBe('failed');
    expect(creations[1]!.status.code).toBe(SpanStatusCode.UNSET);
    expect(root.events.map((e) => e.name)).toContain('requeued');
    expect(root.attributes['gamefactory.outcome']).toBe('assigned');
  });

  it('a find cancelled while its game is being created: every span ends, with the outcome', async () => {
    decisions = ['ignore'];
    const call = client.findGame(findGameRequest(act1('t-1', ['alice'])), withTraceparent(TRACEPARENT));
    call.on('error', () => {});
    await eventually(() => server.orders.some((o) => o.order?.$case === 'createGame'));
    const cancelled = await new Promise((resolve, reject) => client.cancelFind({ ticketId: 't-1' }, (error, answer) => (error ? reject(error) : resolve(answer.cancelled))));
    expect(cancelled).toBe(true);
    const root = await rootEnded('t-1');
    expect(root.attributes['gamefactory.outcome']).toBe('cancelled');
    const [creation] = named(childrenOf(root), 'create game');
    expect(creation!.attributes['gamefactory.outcome']).toBe('cancelled');
  });

  it('competitive: matching lasts until the batch forms the game, with its gap', async () => {
    await Promise.all([findGame(client, duel('d-1', 'ann', 1500)), findGame(client, duel('d-2', 'ben', 1510))]);
    for (const ticketId of ['d-1', 'd-2']) {
      const root = await rootEnded(ticketId);
      const [match] = named(childrenOf(root), 'match');
      expect(match!.attributes).toMatchObject({ 'gamefactory.match.into': 'create', 'gamefactory.match.tickets': 2 });
      expect(typeof match!.attributes['gamefactory.match.gap_sigma']).toBe('number');
      expect(named(childrenOf(root), 'create game')).toHaveLength(1);
    }
  });

  it('a find refused before it is a ticket ends its span in error, with the reason', async () => {
    await expect(findGame(client, { ...act1('t-1', ['alice']), partition: { version: 'v999' } })).rejects.toMatchObject({ code: expect.any(Number) });
    const root = await rootEnded('t-1');
    expect(root.attributes['gamefactory.outcome']).toBe('refused');
    expect(root.status.code).toBe(SpanStatusCode.ERROR);
    expect(root.status.message).toMatch(/v999|version/);
  });
});

/** The spans as an indented tree (what the first test prints). */
function tree(all: ReadableSpan[]): string {
  const lines: string[] = [];
  const walk = (span: ReadableSpan, depth: number) => {
    const duration = (hrTimeToMilliseconds(span.endTime) - hrTimeToMilliseconds(span.startTime)).toFixed(2);
    const attributes = Object.entries(span.attributes)
      .filter(([key]) => key.startsWith('gamefactory.'))
      .map(([key, value]) => `${key.slice('gamefactory.'.length)}=${String(value)}`)
      .join(' ');
    const parent = depth === 0 && span.parentSpanContext ? ` parent=${span.parentSpanContext.spanId} (remote)` : '';
    lines.push(`${'  '.repeat(depth)}${span.name} ${duration} ms${parent} ${attributes}`);
    for (const child of all.filter((s) => s.parentSpanContext?.spanId === span.spanContext().spanId)) walk(child, depth + 1);
  };
  for (const root of all.filter((s) => !all.some((p) => p.spanContext().spanId === s.parentSpanContext?.spanId))) walk(root, 0);
  return lines.join('\n');
}
