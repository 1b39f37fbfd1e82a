import { EventEmitter } from 'node:events';
import { Batch } from './batch.js';
import { clientShape, METHODS, replyError, transformOf, words, type Arg, type MethodName, type Transform } from './client-replies.js';
import { sha1 } from './lua/lua-engine.js';
import type { MemoryRedis } from './memory-redis.js';
import { ErrorReply, type Reply } from './reply.js';

/**
 * When a request reaches Redis and when its reply reaches the client: each hook gets a function
 * to run at the moment it chooses (the simulator's scheduler). A client's requests and replies
 * stay in order whatever the hooks do (one connection is one ordered stream): each call of
 * `transmit`'s function sends the oldest request not sent, each of `deliver`'s settles the oldest
 * reply not delivered.
 */
export interface ClientHooks {
  /** Default: the request arrives at once, inside the call. */
  readonly transmit?: (send: () => void) => void;
  /** Default: the reply is delivered in a microtask. */
  readonly deliver?: (settle: () => void) => void;
}

/** ioredis' rejection of a call while not connected with `enableOfflineQueue: false` (connectRedis' option). */
export const NOT_CONNECTED = "Stream isn't writeable and enableOfflineQueue options is false";
/** ioredis' rejection of a call whose connection closed before its reply came. */
export const CONNECTION_CLOSED = 'Connection is closed.';

interface Pending {
  readonly run: () => Reply;
  readonly args: readonly string[];
  readonly transform: Transform | undefined;
  resolve(value: unknown): void;
  reject(error: Error): void;
}

interface Answered {
  readonly pending: Pending;
  readonly outcome: { readonly reply: Reply } | { readonly error: Error };
  /** The connection it was answered on: a reply whose connection has closed since is lost. */
  readonly connection: number;
}

type Status = 'ready' | 'reconnecting' | 'end';

export type CommandMethods = { [K in MethodName]: (...args: Arg[]) => Promise<any> };

// The named ioredis methods (get, set, hgetall, zrange...) are added to the prototype below.
export interface MemoryRedisClient extends CommandMethods {}

/**
 * One connection to a MemoryRedis with the face of the ioredis client the adapters use: named
 * methods, `call`, `defineCommand` (EVALSHA, then EVAL on NOSCRIPT, as ioredis), `multi` and
 * `pipeline`, `script`, `duplicate`, pub/sub, `status`, events ('connect', 'ready', 'close',
 * 'reconnecting', 'end', 'message'), `isCluster: false`. `cut()` models a partition: calls fail
 * and replies not yet delivered are lost, until `heal()`.
 */
export class MemoryRedisClient extends EventEmitter {
  readonly isCluster = false;
  status: Status = 'ready';
  private connection = 0;
  private isCut = false;
  private readonly outbox: Pending[] = [];
  private readonly inbox: Answered[] = [];
  private readonly channels = new Set<string>();
  /** Scripts defined with defineCommand: name -> how it is called. */
  readonly scripts = new Map<string, { readonly lua: string; readonly sha: string; readonly numberOfKeys: number | undefined }>();

  constructor(
    readonly server: MemoryRedis,
    private readonly hooks: ClientHooks,
    readonly name: string,
  ) {
    super();
    this.schedule(() => {
      if (this.status !== 'ready') return;
      this.emit('connect');
      this.emit('ready');
    });
  }

  private schedule(run: () => void): void {
    if (this.hooks.deliver) this.hooks.deliver(run);
    else queueMicrotask(run);
  }

  /** Sends one command: what `call` and every named method do. */
  send(args: readonly string[], transform?: Transform): Promise<any> {
    return this.request(args, () => this.server.execute(args), transform);
  }

  /** Sends a request whose work on the server is `run` (a command, or a whole EXEC). */
  request(args: readonly string[], run: () => Reply, transform?: Transform): Promise<any> {
    return new Promise((resolve, reject) => {
      this.outbox.push({ run, args, transform, resolve, reject });
      const send = () => this.transmitOne();
      if (this.hooks.transmit) this.hooks.transmit(send);
      else send();
    });
  }

  private transmitOne(): void {
    const pending = this.outbox.shift();
    if (pending === undefined) return;
    const connected = this.status === 'ready' && !this.isCut && this.server.isUp;
    const outcome = connected ? { reply: pending.run() } : { error: new Error(this.status === 'end' ? CONNECTION_CLOSED : NOT_CONNECTED) };
    this.inbox.push({ pending, outcome, connection: this.connection });
    this.schedule(() => this.deliverOne());
  }

  private deliverOne(): void {
    const answered = this.inbox.shift();
    if (answered === undefined) return;
    const { pending, outcome } = answered;
    if ('error' in outcome) return pending.reject(outcome.error);
    if (answered.connection !== this.connection) return pending.reject(new Error(CONNECTION_CLOSED));
    if (outcome.reply instanceof ErrorReply) return pending.reject(replyError(outcome.reply.message, pending.args));
    const shaped = clientShape(outcome.reply, pending.args);
    pending.resolve(pending.transform ? pending.transform(shaped) : shaped);
  }

  call(command: string, ...args: Arg[]): Promise<any> {
    return this.send([command, ...words(args)], transformOf(command));
  }

  /** ioredis' defineCommand: numberOfKeys undefined means the first argument is the key count. */
  defineCommand(name: string, definition: { readonly lua: string; readonly numberOfKeys?: number }): void {
    const script = { lua: definition.lua, sha: sha1(definition.lua), numberOfKeys: definition.numberOfKeys };
    this.scripts.set(name, script);
    (this as unknown as Record<string, unknown>)[name] = (...args: Arg[]) => {
      const rest = words(args);
      const counted = script.numberOfKeys === undefined ? rest : [String(script.numberOfKeys), ...rest];
      return this.send(['EVALSHA', script.sha, ...counted]).catch((error: Error) => {
        if (!error.message.startsWith('NOSCRIPT')) throw error;
        return this.send(['EVAL', script.lua, ...counted]);
      });
    };
  }

  /** MULTI ... EXEC: queued here, run whole on exec. */
  multi(): Batch {
    return new Batch(this, true);
  }

  /** A pipeline: sent together, answered in order (here also run together). */
  pipeline(): Batch {
    return new Batch(this, false);
  }

  duplicate(): MemoryRedisClient {
    return this.server.client(this.hooks, `${this.name}'`);
  }

  async subscribe(...channels: string[]): Promise<number> {
    await this.request(['SUBSCRIBE', ...channels], () => {
      for (const channel of channels) this.server.subscribe(this, channel);
      return 0;
    });
    for (const channel of channels) this.channels.add(channel);
    return this.channels.size;
  }

  async unsubscribe(...channels: string[]): Promise<number> {
    const gone = channels.length > 0 ? channels : [...this.channels];
    await this.request(['UNSUBSCRIBE', ...gone], () => {
      for (const channel of gone) this.server.unsubscribe(this, channel);
      return 0;
    });
    for (const channel of gone) this.channels.delete(channel);
    return this.channels.size;
  }

  /** A message published on a channel this client subscribed to. */
  receive(channel: string, message: string): void {
    const connection = this.connection;
    this.schedule(() => {
      if (connection === this.connection) this.emit('message', channel, message);
    });
  }

  /** A partition: the connection drops; calls fail until `heal`. */
  cut(): void {
    if (this.isCut) return;
    this.isCut = true;
    this.drop();
  }

  heal(): void {
    if (!this.isCut) return;
    this.isCut = false;
    if (this.server.isUp) this.reconnect();
  }

  /** The server crashed. */
  connectionLost(): void {
    if (!this.isCut) this.drop();
  }

  /** The server is back. */
  connectionBack(): void {
    if (!this.isCut) this.reconnect();
  }

  private drop(): void {
    if (this.status === 'end') return;
    this.connection++;
    this.status = 'reconnecting';
    this.emit('close');
    this.emit('reconnecting', 0);
  }

  private reconnect(): void {
    if (this.status === 'end') return;
    this.status = 'ready';
    for (const channel of this.channels) this.server.subscribe(this, channel); // ioredis resubscribes
    this.emit('connect');
    this.emit('ready');
  }

  disconnect(): void {
    if (this.status === 'end') return;
    this.connection++;
    this.status = 'end';
    this.server.forget(this);
    this.emit('close');
    this.emit('end');
  }

  async quit(): Promise<'OK'> {
    this.disconnect();
    return 'OK';
  }
}

for (const method of METHODS) {
  (MemoryRedisClient.prototype as unknown as Record<string, unknown>)[method] = function (this: MemoryRedisClient, ...args: Arg[]) {
    return this.send([method.toUpperCase(), ...words(args)], transformOf(method));
  };
}
