import { Client, credentials, Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { GameServerLinkClient, type CoordinatorMessage } from '../../src/generated/gamefactory/v1/game_server_link.js';
import { MatchmakerClient, type FindGameUpdate } from '../../src/generated/gamefactory/v1/matchmaker.js';
import type { FuzzCase } from '../../test/fuzz/arbitraries.js';
import { frame, RawGrpcConnection, write } from '../../test/transport/raw-http2.js';

/** What one case did: the final status, and any status or rejection seen along the way. */
export interface CaseOutcome {
  readonly code: number;
  readonly details: string;
  /** TicketError codes in FindGame(s) updates, and `rejected` reasons on the link. */
  readonly inBand: readonly { code?: number; reason?: string }[];
}

const identity = (b: Buffer) => b;

/** The outcome code of a case that never ended (not a gRPC code). */
export const HANG = -1;
const HANG_GRACE_MS = 5000;

/**
 * Sends fuzz cases over shared connections: one Matchmaker channel, one link channel and one raw
 * channel carry every case, as many concurrent streams (many cases per connection).
 */
export class FuzzCaseRunner {
  private readonly matchmaker: MatchmakerClient;
  private readonly link: GameServerLinkClient;
  private readonly raw: Client;
  /** Peers that stop reading: raw HTTP/2 streams, many on one connection. */
  private readonly deaf: RawGrpcConnection;

  constructor(
    address: string,
    private readonly deadlineMs: number,
  ) {
    const options = { 'grpc.max_send_message_length': 8 * 1024 * 1024, 'grpc.max_receive_message_length': 8 * 1024 * 1024 };
    this.matchmaker = new MatchmakerClient(address, credentials.createInsecure(), options);
    this.link = new GameServerLinkClient(address, credentials.createInsecure(), options);
    this.raw = new Client(address, credentials.createInsecure(), options);
    this.deaf = new RawGrpcConnection(address);
  }

  close(): void {
    this.matchmaker.close();
    this.link.close();
    this.raw.close();
    this.deaf.close();
  }

  run(c: FuzzCase): Promise<CaseOutcome> {
    const deadline = Date.now() + this.deadlineMs;
    const inBand: { code?: number; reason?: string }[] = [];
    return new Promise<CaseOutcome>((resolve) => {
      let settled = false;
      // A case with no status well past its deadline is a hang, reported as its own code.
      const watchdog = setTimeout(() => done(HANG, `no status ${HANG_GRACE_MS} ms after the deadline`), this.deadlineMs + HANG_GRACE_MS);
      const done = (code: number, details = '') => {
        if (settled) return;
        settled = true;
        clearTimeout(watchdog);
        resolve({ code, details, inBand });
      };
      const onUpdate = (u: FindGameUpdate) => {
        if (u.update?.$case === 'error') inBand.push({ code: u.update.value.code, reason: u.update.value.message });
      };
      const fail = (e: ServiceError) => done(e.code ?? status.UNKNOWN, e.details ?? e.message);
      switch (c.kind) {
        case 'findGame': {
          const call = this.matchmaker.findGame(c.request, { deadline });
          call.on('data', onUpdate).on('error', fail).on('end', () => done(status.OK));
          return;
        }
        case 'findGames': {
          const call = this.matchmaker.findGames({ deadline });
          call.on('data', onUpdate).on('error', fail).on('end', () => done(status.OK));
          for (const r of c.requests) call.write(r);
          call.end();
          return;
        }
        case 'cancelFind':
          this.matchmaker.cancelFind(c.request, new Metadata(), { deadline }, (e) => (e ? fail(e) : done(status.OK)));
          return;
        case 'queryStats':
          this.matchmaker.queryStats(c.request, new Metadata(), { deadline }, (e) => (e ? fail(e) : done(status.OK)));
          return;
        case 'link': {
          const call = this.link.connect({ deadline });
          call.on('data', (m: CoordinatorMessage) => {
            if (m.order?.$case === 'rejected') inBand.push({ reason: m.order.value.reason });
          });
          call.on('error', fail).on('end', () => done(status.OK));
          for (const m of c.messages) call.write(m);
          call.end();
          return;
        }
        case 'deaf': {
          // Sends everything without reading a reply, then waits out the deadline: the server may
          // end the stream (any clean status) or leave it open; either way the client then cancels.
          const call = this.deaf.open(c.path, { read: false });
          const bytes = Buffer.concat(Array.from({ length: c.repeat }, () => c.messages.map((m) => frame(m))).flat());
          void write(call.stream, bytes);
          const timer = setTimeout(() => {
            call.stream.close();
            done(status.OK);
          }, Math.max(0, deadline - Date.now()));
          void call.ended.then((end) => {
            clearTimeout(timer);
            call.stream.close();
            if (end.grpcStatus !== undefined) done(end.grpcStatus, end.grpcMessage);
            else done(end.rstCode === 11 ? status.RESOURCE_EXHAUSTED : status.CANCELLED, `RST_STREAM ${end.rstCode}`);
          });
          return;
        }
        case 'raw': {
          const bytes = Buffer.from(c.bytes);
          if (c.path.endsWith('CancelFind') || c.path.endsWith('QueryStats')) {
            this.raw.makeUnaryRequest(c.path, identity, identity, bytes, new Metadata(), { deadline }, (e) => (e ? fail(e) : done(status.OK)));
          } else if (c.path.endsWith('FindGame')) {
            const call = this.raw.makeServerStreamRequest(c.path, identity, identity, bytes, new Metadata(), { deadline });
            call.on('data', () => {}).on('error', fail).on('end', () => done(status.OK));
          } else {
            const call = this.raw.makeBidiStreamRequest(c.path, identity, identity, new Metadata(), { deadline });
            call.on('data', () => {}).on('error', fail).on('end', () => done(status.OK));
            call.write(bytes);
            call.end();
          }
          return;
        }
      }
    });
  }
}

/** JSON for a case (bigints and bytes included), to print as a reproducer. */
export function caseJson(c: FuzzCase): string {
  return JSON.stringify(c, (_k, v: unknown) =>
    typeof v === 'bigint' ? `${v}n` : v instanceof Uint8Array ? { bytes: Buffer.from(v).toString('base64') } : v,
  );
}
