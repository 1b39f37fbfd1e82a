import { Client, credentials, Metadata, status, type ClientDuplexStream, type ServiceError } from '@grpc/grpc-js';
import { CoordinatorMessage, ServerMessage } from '../../src/generated/gamefactory/v1/game_server_link.js';
import type { HostileCall, SharedConnectionPlan } from './shared-connection-plan.js';
import type { SharedConnectionReport } from './shared-connection.test.js';

const identity = (b: Buffer) => b;
const bytes = (b64: string) => Buffer.from(b64, 'base64');
const codeName = (code: number) => status[code] ?? String(code);

/** The plan on one grpc-js channel: every call generic (bytes in, bytes out), as the Python client does. */
export async function driveWithGrpcJs(plan: SharedConnectionPlan): Promise<SharedConnectionReport> {
  const client = new Client(plan.address, credentials.createInsecure(), { 'grpc.max_send_message_length': 8 * 1024 * 1024 });
  try {
    const bystander = bystanderLink(client, plan);
    await bystander.welcomed;
    // Hostile calls in batches, and the link sequences one after another, at the same time.
    const links: SharedConnectionReport['links'][number][] = [];
    const linking = (async () => {
      for (const sequence of plan.links) links.push(await linkSequence(client, plan, sequence.messages));
    })();
    const hostile: Record<string, number> = {};
    for (let i = 0; i < plan.hostile.length; i += plan.hostileConcurrency) {
      const codes = await Promise.all(plan.hostile.slice(i, i + plan.hostileConcurrency).map((c) => hostileCall(client, c)));
      for (const code of codes) hostile[codeName(code)] = (hostile[codeName(code)] ?? 0) + 1;
    }
    await linking;
    const find = await new Promise<SharedConnectionReport['find']>((resolve) => {
      const updates: string[] = [];
      const call = client.makeServerStreamRequest(plan.matchmakerFindPath, identity, identity, bytes(plan.find), new Metadata(), { deadline: Date.now() + plan.linkDeadlineMs });
      call.on('data', (u: Buffer) => updates.push(u.toString('base64')));
      call.on('error', (e: ServiceError) => resolve({ code: codeName(e.code), details: e.details }));
      call.on('end', () => resolve({ code: 'OK', updates }));
    });
    const report = { hostile, links, bystanderWelcomed: true, bystanderEnded: bystander.ended(), find };
    bystander.call.cancel();
    return report;
  } finally {
    client.close();
  }
}

function bystanderLink(client: Client, plan: SharedConnectionPlan) {
  const call: ClientDuplexStream<Buffer, Buffer> = client.makeBidiStreamRequest(plan.linkPath, identity, identity);
  let ended: string | null = null;
  let games = 0;
  const welcomed = new Promise<void>((resolve) => {
    call.on('data', (reply: Buffer) => {
      const message = CoordinatorMessage.decode(reply);
      const orders = message.order?.$case === 'batch' ? message.order.value.orders : [message];
      for (const { order } of orders) {
        if (order?.$case === 'welcome') resolve();
        if (order?.$case === 'keepalive') call.write(Buffer.from(ServerMessage.encode({ event: { $case: 'keepaliveAck', value: { sequence: order.value.sequence } } }).finish()));
        if (order?.$case === 'createGame') {
          call.write(Buffer.from(ServerMessage.encode({ event: { $case: 'gameCreated', value: { requestId: order.value.requestId, gameId: `bystander-game-${++games}` } } }).finish()));
        }
      }
    });
  });
  call.on('error', (e: ServiceError) => (ended = codeName(e.code)));
  call.on('end', () => (ended ??= 'OK'));
  call.write(bytes(plan.bystanderHello));
  return { call, welcomed, ended: () => ended };
}

function hostileCall(client: Client, c: HostileCall): Promise<number> {
  return new Promise((resolve) => {
    const deadline = Date.now() + c.deadlineMs;
    const fail = (e: ServiceError) => resolve(e.code);
    if (c.shape === 'unary') {
      client.makeUnaryRequest(c.path, identity, identity, bytes(c.messages[0]!), new Metadata(), { deadline }, (e) => (e ? fail(e) : resolve(status.OK)));
      return;
    }
    const call =
      c.shape === 'server'
        ? client.makeServerStreamRequest(c.path, identity, identity, bytes(c.messages[0]!), new Metadata(), { deadline })
        : client.makeBidiStreamRequest(c.path, identity, identity, new Metadata(), { deadline });
    if (c.shape === 'bidi') {
      const duplex = call as ClientDuplexStream<Buffer, Buffer>;
      for (const m of c.messages) duplex.write(bytes(m));
      duplex.end();
    }
    call.on('error', fail).on('end', () => resolve(status.OK));
    if (c.read) call.on('data', () => {});
    else setTimeout(() => call.cancel(), c.cancelAfterMs ?? 0);
  });
}

function linkSequence(client: Client, plan: SharedConnectionPlan, messages: readonly string[]) {
  const started = performance.now();
  return new Promise<SharedConnectionReport['links'][number]>((resolve) => {
    const call: ClientDuplexStream<Buffer, Buffer> = client.makeBidiStreamRequest(plan.linkPath, identity, identity, new Metadata(), { deadline: Date.now() + plan.linkDeadlineMs });
    let welcomeMs: number | null = null;
    const rest = () => {
      for (const m of messages.slice(1)) call.write(bytes(m));
      call.end();
    };
    call.on('data', () => {
      if (welcomeMs !== null) return;
      welcomeMs = performance.now() - started;
      rest();
    });
    const done = (code: string, details = '') => resolve({ welcomeMs, code, details, totalMs: performance.now() - started });
    call.on('error', (e: ServiceError) => done(codeName(e.code), e.details));
    call.on('end', () => done('OK'));
    call.write(bytes(messages[0]!));
  });
}
