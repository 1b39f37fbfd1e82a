import fc from 'fast-check';
import { status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FUZZ_YAML } from '../../perf/fuzz/fuzz-run.js';
import { FuzzCaseRunner, HANG, caseJson, type CaseOutcome } from '../../perf/fuzz/fuzz-case-runner.js';
import { CancelFindRequest, FindGameRequest, MatchmakerService, QueryStatsRequest } from '../../src/generated/gamefactory/v1/matchmaker.js';
import { TestCoordinator } from '../integration/harness.js';
import { httpCall, type HttpProtocol } from '../transport/http/http-client.js';
import { fuzzCase, type FuzzCase } from './arbitraries.js';

/** The cases a client can send over HTTP: one request to a method the gateway serves. */
type HttpCase = Extract<FuzzCase, { kind: 'findGame' | 'cancelFind' | 'queryStats' | 'raw' }>;
const SERVED = new Set<string>([MatchmakerService.findGame.path, MatchmakerService.cancelFind.path, MatchmakerService.queryStats.path]);
const overHttp = (c: FuzzCase): c is HttpCase =>
  c.kind === 'findGame' || c.kind === 'cancelFind' || c.kind === 'queryStats' || (c.kind === 'raw' && SERVED.has(c.path));

const DEADLINE_MS = 3000;
/** The longest an HTTP call took to answer, for the report. */
let slowest = 0;
const HANG_AFTER_MS = DEADLINE_MS + 30_000;

/** One case over the gateway, in the protocol given: the path, the request's bytes, and whether its replies stream. */
async function runOverHttp(base: string, c: HttpCase, protocol: HttpProtocol): Promise<CaseOutcome> {
  const [path, bytes] =
    c.kind === 'findGame'
      ? [MatchmakerService.findGame.path, FindGameRequest.encode(c.request).finish()]
      : c.kind === 'cancelFind'
        ? [MatchmakerService.cancelFind.path, CancelFindRequest.encode(c.request).finish()]
        : c.kind === 'queryStats'
          ? [MatchmakerService.queryStats.path, QueryStatsRequest.encode(c.request).finish()]
          : [c.path, c.bytes];
  const hang = new AbortController();
  const timer = setTimeout(() => hang.abort(), HANG_AFTER_MS);
  const started = Date.now();
  try {
    const outcome = await httpCall(base, path, bytes, { protocol, streaming: path === MatchmakerService.findGame.path, timeoutMs: DEADLINE_MS, signal: hang.signal });
    slowest = Math.max(slowest, Date.now() - started);
    return { code: outcome.code, details: outcome.details, inBand: [] };
  } catch (error) {
    return hang.signal.aborted ? { code: HANG, details: `no answer ${HANG_AFTER_MS} ms after the call`, inBand: [] } : { code: status.UNKNOWN, details: String(error), inBand: [] };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The case with its ticket and player ids made its own (prefixed with its place): cases run many
 * at a time, and two reusing an id would meet in a different order on each coordinator (one
 * refused ALREADY_EXISTS here, the other there). Both coordinators get the same rewritten case.
 */
function ownIds<C extends HttpCase>(c: C, i: number): C;
function ownIds(c: HttpCase, i: number): HttpCase {
  const own = (id: string) => (id === '' ? id : `${i}.${id}`);
  if (c.kind === 'raw') return c;
  if (c.kind === 'findGame') return { ...c, request: { ...c.request, ticketId: own(c.request.ticketId), party: c.request.party.map((p) => ({ ...p, playerId: own(p.playerId) })) } };
  if (c.kind === 'cancelFind') return { ...c, request: { ticketId: own(c.request.ticketId) } };
  return c;
}

/**
 * What must match: a refusal's code and message; a call served (answered OK, or still waiting
 * for a game at its deadline) only as served, since the two coordinators' timing differs.
 */
const served = new Set<number>([status.OK, status.DEADLINE_EXCEEDED]);
const verdict = (o: CaseOutcome) => (served.has(o.code) ? 'served' : `${status[o.code] ?? o.code}: ${o.details}`);

/**
 * The fuzz corpus's cases a client can send over HTTP, each sent over gRPC to one coordinator and
 * over the HTTP gateway (Connect and gRPC-Web in turn) to another run the same way: the same
 * refusals with the same messages, never INTERNAL or UNKNOWN, never a hang.
 */
describe('fuzz cases over the HTTP gateway answer as over gRPC', () => {
  let grpcSide: TestCoordinator;
  let httpSide: TestCoordinator;
  beforeAll(async () => {
    [grpcSide, httpSide] = await Promise.all([TestCoordinator.start(FUZZ_YAML), TestCoordinator.start(FUZZ_YAML, undefined, { httpListen: '127.0.0.1:0' })]);
    for (const side of [grpcSide, httpSide]) await side.server({ serverId: 'fuzz-host', attributes: { version: 'v201' }, maxGames: 2000 }, { autoJoin: true, endWhenFull: 4 });
  });
  afterAll(async () => {
    await Promise.all([grpcSide?.stop(), httpSide?.stop()]);
  });

  it('1,500 cases: same codes and messages, 0 INTERNAL, 0 hangs', { timeout: 240_000 }, async () => {
    const cases = fc.sample(fuzzCase, { numRuns: 6000, seed: 20261207 }).filter(overHttp).slice(0, 1500).map(ownIds);
    expect(cases.length).toBe(1500);
    const runner = new FuzzCaseRunner(grpcSide.address, DEADLINE_MS);
    const base = `http://127.0.0.1:${httpSide.running.httpPort}`;
    const mismatches: string[] = [];
    const codes: Record<string, number> = {};
    const BATCH = 100;
    let rerun = 0;
    try {
      for (let at = 0; at < cases.length; at += BATCH) {
        const batch = cases.slice(at, at + BATCH);
        const results = await Promise.all(batch.map((c, i) => Promise.all([runner.run(c), runOverHttp(base, c, (at + i) % 2 === 0 ? 'connect' : 'grpc-web')])));
        for (const [i, [grpc, http]] of results.entries()) {
          let [g, h] = [grpc, http];
          // A call that met its deadline on one side while the other answered had waited behind a
          // hundred others on a busy machine: run alone (with ids of its own again), it is compared.
          if (verdict(g) !== verdict(h) && (g.code === status.DEADLINE_EXCEEDED || h.code === status.DEADLINE_EXCEEDED)) {
            const alone = ownIds(batch[i]!, cases.length + at + i);
            [g, h] = await Promise.all([runner.run(alone), runOverHttp(base, alone, (at + i) % 2 === 0 ? 'connect' : 'grpc-web')]);
            rerun++;
          }
          const name = h.code === HANG ? 'HANG' : (status[h.code] ?? String(h.code));
          codes[name] = (codes[name] ?? 0) + 1;
          if (verdict(g) !== verdict(h)) mismatches.push(`${caseJson(batch[i]!).slice(0, 200)}\n  gRPC: ${status[g.code]} ${g.details}\n  HTTP: ${status[h.code]} ${h.details}`);
        }
      }
    } finally {
      runner.close();
    }
    console.log(`http parity: ${JSON.stringify({ codes, rerunAlone: rerun, slowestHttpMs: slowest })}`);
    if (mismatches.length > 0) console.error(mismatches.slice(0, 10).join('\n'));
    expect(codes.INTERNAL ?? 0).toBe(0);
    expect(codes.UNKNOWN ?? 0).toBe(0);
    expect(codes.HANG ?? 0).toBe(0);
    expect(mismatches).toEqual([]);
  });
});
