/**
 * The transport's floor on this machine: bare @grpc/grpc-js echo over loopback, with nothing of
 * gamefactory in the path. Coordinator benchmarks are read against it: no RPC can beat these rows.
 * Client and server share one process and event loop, as in our in-process integration runs.
 */
import * as grpc from '@grpc/grpc-js';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { BenchOptions, BenchRow, BenchSuite } from './bench-suite.js';
import { startServerChild, type ServerChild } from './child-process.js';

const identity = (buffer: Buffer): Buffer => buffer;

/** A hand-written service over raw Buffers, so the floor includes no protobuf encoding. */
const echoService = {
  unary: {
    path: '/gamefactory.perf.Echo/Unary',
    requestStream: false,
    responseStream: false,
    requestSerialize: identity,
    requestDeserialize: identity,
    responseSerialize: identity,
    responseDeserialize: identity,
  },
  stream: {
    path: '/gamefactory.perf.Echo/Stream',
    requestStream: true,
    responseStream: true,
    requestSerialize: identity,
    requestDeserialize: identity,
    responseSerialize: identity,
    responseDeserialize: identity,
  },
  /** Answers once and keeps the stream open: the floor of a waiting FindGame's memory (waiting-memory.bench.ts). */
  hold: {
    path: '/gamefactory.perf.Echo/Hold',
    requestStream: false,
    responseStream: true,
    requestSerialize: identity,
    requestDeserialize: identity,
    responseSerialize: identity,
    responseDeserialize: identity,
  },
} satisfies grpc.ServiceDefinition;

/** The methods makeGenericClientConstructor adds, typed by hand since there is no generated code. */
interface EchoClient extends grpc.Client {
  unary(request: Buffer, callback: (error: grpc.ServiceError | null, response?: Buffer) => void): grpc.ClientUnaryCall;
  stream(): grpc.ClientDuplexStream<Buffer, Buffer>;
  hold(request: Buffer): grpc.ClientReadableStream<Buffer>;
}
const EchoClientConstructor = grpc.makeGenericClientConstructor(echoService, 'Echo');

const payloadBytes = 64;
const unaryInFlight = 64;
const streamWindow = 256;

const echoHandlers: grpc.UntypedServiceImplementation = {
  unary(call: grpc.ServerUnaryCall<Buffer, Buffer>, callback: grpc.sendUnaryData<Buffer>) {
    callback(null, call.request);
  },
  stream(call: grpc.ServerDuplexStream<Buffer, Buffer>) {
    call.on('data', (message: Buffer) => {
      // Back-pressure: stop reading while the response side is full.
      if (!call.write(message)) {
        call.pause();
        call.once('drain', () => call.resume());
      }
    });
    call.on('end', () => call.end());
  },
  hold(call: grpc.ServerWritableStream<Buffer, Buffer>) {
    call.write(call.request);
  },
};

async function startEchoServer(): Promise<{ server: grpc.Server; port: number }> {
  const server = new grpc.Server();
  server.addService(echoService, echoHandlers);
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    );
  });
  return { server, port };
}

/** Latencies in ms, kept in a growable typed array so a few million samples stay cheap. */
class LatencySamples {
  private samples = new Float64Array(1 << 16);
  private count = 0;
  add(ms: number): void {
    if (this.count === this.samples.length) {
      const grown = new Float64Array(this.samples.length * 2);
      grown.set(this.samples);
      this.samples = grown;
    }
    this.samples[this.count++] = ms;
  }
  get size(): number {
    return this.count;
  }
  percentile(p: number): number {
    const sorted = this.samples.slice(0, this.count).sort();
    return sorted[Math.min(this.count - 1, Math.floor((p / 100) * this.count))] ?? Number.NaN;
  }
}

const nowMs = (): number => Number(process.hrtime.bigint()) / 1e6;

export interface EchoResult {
  readonly perSecond: number;
  /** Process CPU time (client, and server when in process) per echo: steadier than the rate when the cores are shared. */
  readonly cpuMicrosPerEcho: number;
  /** With the server in its own process: its CPU time per echo. */
  readonly serverCpuMicrosPerEcho?: number;
  readonly latency: LatencySamples;
}

/** Starts counting process CPU time (and a server child's) when the measured window opens. */
class CpuMeter {
  private startedAt: NodeJS.CpuUsage | undefined;
  private serverStartedAt = 0;
  constructor(private readonly serverCpu?: () => number) {}
  open(): void {
    if (this.startedAt) return;
    this.startedAt = process.cpuUsage();
    this.serverStartedAt = this.serverCpu?.() ?? 0;
  }
  result(perSecond: number, latency: LatencySamples): EchoResult {
    const used = process.cpuUsage(this.startedAt);
    const echoes = Math.max(latency.size, 1);
    const server = this.serverCpu && (this.serverCpu() - this.serverStartedAt) / echoes;
    return { perSecond, cpuMicrosPerEcho: (used.user + used.system) / echoes, serverCpuMicrosPerEcho: server, latency };
  }
}

export interface Phase {
  readonly warmupMs: number;
  readonly measureMs: number;
}

/** Keeps `unaryInFlight` calls outstanding; counts and times only calls started after warm-up. */
async function measureUnary(client: EchoClient, phase: Phase, serverCpu?: () => number): Promise<EchoResult> {
  const payload = Buffer.alloc(payloadBytes, 1);
  const call = (): Promise<void> =>
    new Promise((resolve, reject) => {
      client.unary(payload, (error) => (error ? reject(error) : resolve()));
    });
  const latency = new LatencySamples();
  const measureFrom = nowMs() + phase.warmupMs;
  const measureUntil = measureFrom + phase.measureMs;
  const cpu = new CpuMeter(serverCpu);
  const worker = async (): Promise<void> => {
    for (let started = nowMs(); started < measureUntil; started = nowMs()) {
      if (started >= measureFrom) cpu.open();
      await call();
      if (started >= measureFrom) latency.add(nowMs() - started);
    }
  };
  await Promise.all(Array.from({ length: unaryInFlight }, worker));
  return cpu.result(latency.size / (phase.measureMs / 1000), latency);
}

/**
 * One bidirectional stream, pipelined: up to `streamWindow` messages in flight, writes paused
 * whenever write() asks for it until 'drain'. Echoes come back in order, so a FIFO of send times
 * gives each message's round trip.
 */
async function measureStream(client: EchoClient, phase: Phase, serverCpu?: () => number): Promise<EchoResult> {
  const stream = client.stream();
  const payload = Buffer.alloc(payloadBytes, 2);
  const latency = new LatencySamples();
  const sentAt: number[] = [];
  let sentHead = 0;
  const measureFrom = nowMs() + phase.warmupMs;
  const measureUntil = measureFrom + phase.measureMs;
  let writable = true;
  let sending = true;
  const cpu = new CpuMeter(serverCpu);

  return new Promise((resolve, reject) => {
    const pump = (): void => {
      while (sending && writable && sentAt.length - sentHead < streamWindow) {
        const now = nowMs();
        if (now >= measureUntil) {
          sending = false;
          stream.end();
          break;
        }
        if (now >= measureFrom) cpu.open();
        sentAt.push(now);
        writable = stream.write(payload);
      }
    };
    stream.on('drain', () => {
      writable = true;
      pump();
    });
    stream.on('data', () => {
      const started = sentAt[sentHead++]!;
      if (sentHead > 1 << 16) {
        sentAt.splice(0, sentHead);
        sentHead = 0;
      }
      if (started >= measureFrom) latency.add(nowMs() - started);
      pump();
    });
    stream.on('error', reject);
    stream.on('end', () => resolve(cpu.result(latency.size / (phase.measureMs / 1000), latency)));
    pump();
  });
}

function rowsFor(subject: string, rate: string, result: EchoResult): BenchRow[] {
  const group = 'transport floor: grpc-js over loopback';
  const server: BenchRow[] =
    result.serverCpuMicrosPerEcho === undefined
      ? []
      : [{ group, subject, metric: 'server cpu µs per echo', value: result.serverCpuMicrosPerEcho, higherIsBetter: false }];
  return [
    { group, subject, metric: rate, value: result.perSecond, higherIsBetter: true },
    { group, subject, metric: 'cpu µs per echo', value: result.cpuMicrosPerEcho, higherIsBetter: false },
    ...server,
    { group, subject, metric: 'p50 ms', value: result.latency.percentile(50), higherIsBetter: false },
    { group, subject, metric: 'p99 ms', value: result.latency.percentile(99), higherIsBetter: false },
  ];
}

const transportFloor: BenchSuite = {
  name: 'transport-floor',
  async run(options: BenchOptions): Promise<BenchRow[]> {
    const phase: Phase = options.quick ? { warmupMs: 200, measureMs: 500 } : { warmupMs: 1000, measureMs: 3000 };
    const { server, port } = await startEchoServer();
    const client = new EchoClientConstructor(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as unknown as EchoClient;
    try {
      const unary = await measureUnary(client, phase);
      const stream = await measureStream(client, phase);
      return [
        ...rowsFor(`unary echo, ${unaryInFlight} in flight`, 'calls/s', unary),
        ...rowsFor(`bidi stream echo, window ${streamWindow}`, 'msgs/s', stream),
        ...(await measureApart(phase)),
      ];
    } finally {
      client.close();
      await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
    }
  },
};

/**
 * The same echoes with the server in its own process, as the coordinator is measured end to end
 * (issue 15): the server's CPU per echo comes from /proc, beside the coordinator's per ticket.
 */
async function measureApart(phase: Phase): Promise<BenchRow[]> {
  const echo = await openEchoApart();
  try {
    const unary = await echo.unary(phase);
    const stream = await echo.stream(phase);
    return [
      ...rowsFor(`unary echo, ${unaryInFlight} in flight, ${APART}`, 'calls/s', unary),
      ...rowsFor(`bidi stream echo, window ${streamWindow}, ${APART}`, 'msgs/s', stream),
    ];
  } finally {
    await echo.close();
  }
}

/** The echo server in its own process and a client of it, kept open between measurements (the end-to-end bench's rounds measure it several times). */
export interface EchoApart {
  unary(phase: Phase): Promise<EchoResult>;
  stream(phase: Phase): Promise<EchoResult>;
  close(): Promise<void>;
}

export async function openEchoApart(): Promise<EchoApart> {
  const child = await startEchoChild();
  const client = new EchoClientConstructor(`127.0.0.1:${child.port}`, grpc.credentials.createInsecure()) as unknown as EchoClient;
  const serverCpu = () => child.cpuMicros();
  return {
    unary: (phase) => measureUnary(client, phase, serverCpu),
    stream: (phase) => measureStream(client, phase, serverCpu),
    async close() {
      client.close();
      await child.stop();
    },
  };
}

export const APART = 'server in its own process';

/** The bare echo server in its own process (RSS and CPU from /proc). */
export const startEchoChild = (): Promise<ServerChild> =>
  startServerChild([fileURLToPath(import.meta.url), '--serve'], (line) => {
    const match = /^echo listening on (\d+)$/.exec(line);
    return match ? Number(match[1]) : undefined;
  });

/**
 * `count` Hold calls, each answered once and left open, spread over `channels` connections as
 * waiting-load.ts spreads its FindGame calls; resolves once every call has its answer.
 */
export async function holdOpen(address: string, count: number, channels = 8): Promise<{ close(): void }> {
  const clients = Array.from({ length: channels }, (_, i) => new EchoClientConstructor(address, grpc.credentials.createInsecure(), { 'grpc.max_concurrent_streams': 1 << 30, 'gamefactory.bench.channel': i }) as unknown as EchoClient);
  const calls: grpc.ClientReadableStream<Buffer>[] = [];
  const request = Buffer.alloc(payloadBytes);
  let answered = 0;
  await new Promise<void>((resolve, reject) => {
    let next = 0;
    const open = () => {
      for (const end = Math.min(count, next + 1000); next < end; next++) {
        const call = clients[next % channels]!.hold(request);
        call.once('data', () => {
          if (++answered >= count) resolve();
          else if (answered === next) setImmediate(open);
        });
        call.on('error', (error: grpc.ServiceError) => {
          if (error.code !== grpc.status.CANCELLED) reject(error);
        });
        calls.push(call);
      }
    };
    open();
  });
  return {
    close() {
      for (const call of calls) call.cancel();
      for (const client of clients) client.close();
    },
  };
}

// `tsx transport-floor.bench.ts --serve`: the echo server alone, for measureApart.
if (process.argv.includes('--serve') && import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { port } = await startEchoServer();
  console.log(`echo listening on ${port}`);
}

export default transportFloor;
