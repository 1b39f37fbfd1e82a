import { MemoryRedisClient, type ClientHooks } from './client.js';
import { clientShape, replyError } from './client-replies.js';
import { DATA_COMMANDS, type CommandContext, type CommandSpec } from './commands/index.js';
import { Journal, type Keep } from './journal.js';
import { Keyspace } from './keyspace.js';
import { LuaEngine } from './lua/lua-engine.js';
import { CommandError, ErrorReply, NOT_INTEGER, parseInteger, StatusReply, type Reply } from './reply.js';

export interface MemoryRedisOptions {
  /** The clock (ms): expiry, PTTL, TIME and stream ids read it; nothing else does. */
  now(): number;
  /** The longest loss a restart can ask for (`{ lostLastMs }`); default 10 s. */
  readonly maxLossWindowMs?: number;
  /** Hooks of clients made without their own (`client()`): when requests arrive and replies are delivered. */
  readonly hooks?: ClientHooks;
}

/** Commands a script may not call (Redis: "This Redis command is not allowed from script"). */
const NOT_IN_SCRIPTS = new Set(['EVAL', 'EVALSHA', 'SCRIPT', 'MULTI', 'EXEC', 'SUBSCRIBE', 'UNSUBSCRIBE']);

/**
 * An in-memory Redis with Redis 7's semantics for what this project's adapters and Lua scripts
 * use, for the deterministic cluster simulator: one thread, an injected clock, no timers, and
 * every client's replies delivered through a hook the simulator controls. A command, a script
 * and a MULTI/EXEC each run whole, nothing between (as on Redis). It can crash and come back
 * keeping what its persistence would have kept (`crash`, `recover`, `restart`); while down,
 * every call fails as ioredis' calls fail on a refused connection.
 */
export class MemoryRedis {
  private db = new Keyspace();
  private engine = new LuaEngine();
  private readonly journal: Journal;
  private up = true;
  private readonly clients = new Set<MemoryRedisClient>();
  private readonly channels = new Map<string, Set<MemoryRedisClient>>();
  private readonly commands: Record<string, CommandSpec>;
  /** Clock of the atomic step running now (a script's commands all see the time it started). */
  private stepNow: number | undefined;

  constructor(readonly options: MemoryRedisOptions) {
    this.commands = { ...DATA_COMMANDS, ...this.serverCommands() };
    this.journal = new Journal(new Keyspace(), (db, at, args) => this.replay(db, at, args), options.maxLossWindowMs ?? 10_000);
  }

  get isUp(): boolean {
    return this.up;
  }

  /** A new connection; `hooks` default to the server's. */
  client(hooks: ClientHooks = this.options.hooks ?? {}, name = `client-${this.clients.size + 1}`): MemoryRedisClient {
    const client = new MemoryRedisClient(this, hooks, name);
    this.clients.add(client);
    return client;
  }

  /** Runs one command whole (EVAL and EVALSHA included), as a client's request does. */
  execute(args: readonly string[]): Reply {
    return this.atomically(() => this.dispatch(args, false));
  }

  /**
   * The simulator's own look at the data (its invariant checks), outside any client and its hooks,
   * shaped as ioredis would answer; also while Redis is down. Only commands that write nothing.
   */
  inspect(command: string, ...args: (string | number)[]): unknown {
    const words = [command, ...args.map(String)];
    const spec = this.commands[command.toUpperCase()];
    if (spec === undefined || spec.write || ['EVAL', 'EVALSHA', 'SCRIPT', 'PUBLISH'].includes(command.toUpperCase())) {
      throw new RangeError(`memory redis: inspect runs read-only data commands, not ${command}`);
    }
    const reply = this.execute(words);
    if (reply instanceof ErrorReply) throw replyError(reply.message, words);
    return clientShape(reply, words);
  }

  /** MULTI ... EXEC: refused whole (EXECABORT) if a command is unknown or miscounted, else each runs, nothing between. */
  transaction(commands: readonly (readonly string[])[]): Reply {
    for (const args of commands) {
      const refused = this.refusal(args, false);
      if (refused !== undefined) return new ErrorReply('EXECABORT Transaction discarded because of previous errors.');
    }
    return this.atomically(() => commands.map((args) => this.dispatch(args, false)));
  }

  /** Active expiry: deletes every key past its time now (Redis' background cycle); returns how many. */
  sweep(): number {
    this.db.now = this.options.now();
    return this.db.sweep();
  }

  /** Redis stops (kill -9): clients' calls fail from now on, and what the persistence mode would lose is gone. */
  crash(keep: Keep): void {
    if (!this.up) throw new Error('memory redis: crash while already down');
    const now = this.options.now();
    if (keep !== 'all') this.db = this.journal.recover(keep, now, () => new Keyspace());
    this.up = false;
    this.engine = new LuaEngine(); // the script cache is not persisted: NOSCRIPT until loaded again
    this.channels.clear();
    for (const client of this.clients) client.connectionLost();
  }

  /** Redis is back: connected clients reconnect (and resubscribe). */
  recover(): void {
    if (this.up) throw new Error('memory redis: recover while up');
    this.up = true;
    for (const client of this.clients) client.connectionBack();
  }

  /** crash then recover: a restart with the persistence mode `keep` models. */
  restart({ keep }: { readonly keep: Keep }): void {
    this.crash(keep);
    this.recover();
  }

  subscribe(client: MemoryRedisClient, channel: string): void {
    let subscribers = this.channels.get(channel);
    if (!subscribers) this.channels.set(channel, (subscribers = new Set()));
    subscribers.add(client);
  }

  unsubscribe(client: MemoryRedisClient, channel: string): void {
    this.channels.get(channel)?.delete(client);
  }

  forget(client: MemoryRedisClient): void {
    this.clients.delete(client);
    for (const subscribers of this.channels.values()) subscribers.delete(client);
  }

  private atomically<T>(run: () => T): T {
    this.stepNow = this.options.now();
    this.db.now = this.stepNow;
    try {
      return run();
    } finally {
      this.stepNow = undefined;
    }
  }

  /** Why a command is refused before it runs (unknown, miscounted), as a client or a script is told. */
  private refusal(args: readonly string[], fromScript: boolean): ErrorReply | undefined {
    const name = (args[0] ?? '').toUpperCase();
    const spec = this.commands[name];
    if (spec === undefined) {
      if (fromScript) return new ErrorReply('ERR Unknown Redis command called from script');
      const rest = args
        .slice(1)
        .map((a) => `'${a}' `)
        .join('');
      return new ErrorReply(`ERR unknown command '${args[0] ?? ''}', with args beginning with: ${rest}`);
    }
    if (spec.arity > 0 ? args.length !== spec.arity : args.length < -spec.arity) {
      return new ErrorReply(fromScript ? 'ERR Wrong number of args calling Redis command from script' : `ERR wrong number of arguments for '${name.toLowerCase()}' command`);
    }
    if (fromScript && NOT_IN_SCRIPTS.has(name)) return new ErrorReply('ERR This Redis command is not allowed from script');
    return undefined;
  }

  private dispatch(args: readonly string[], fromScript: boolean): Reply {
    const refused = this.refusal(args, fromScript);
    if (refused !== undefined) return refused;
    const spec = this.commands[args[0]!.toUpperCase()]!;
    const ctx: CommandContext = { db: this.db, now: this.stepNow! };
    let reply: Reply;
    try {
      reply = spec.run(ctx, args.slice(1));
    } catch (error) {
      if (error instanceof CommandError) return new ErrorReply(error.message);
      throw error;
    }
    if (spec.write) this.journal.record(ctx.now, args);
    return reply;
  }

  /** Runs a journaled write again on the durable copy, at the time it first ran. */
  private replay(db: Keyspace, at: number, args: readonly string[]): void {
    db.now = at;
    try {
      this.commands[args[0]!.toUpperCase()]!.run({ db, now: at }, args.slice(1));
    } catch (error) {
      if (!(error instanceof CommandError)) throw error;
    }
  }

  private serverCommands(): Record<string, CommandSpec> {
    const script = (sha: string, rest: readonly string[]): Reply => {
      const count = parseInteger(rest[0]!, NOT_INTEGER);
      if (count < 0) throw new CommandError("ERR Number of keys can't be negative");
      if (count > rest.length - 1) throw new CommandError("ERR Number of keys can't be greater than number of args");
      const keys = rest.slice(1, 1 + count);
      const argv = rest.slice(1 + count);
      return this.engine.run(sha, keys, argv, (words) => this.dispatch(words, true));
    };
    const loaded = (body: string): string => {
      const sha = this.engine.load(body);
      if (sha instanceof ErrorReply) throw new CommandError(sha.message);
      return sha;
    };
    return {
      EVAL: { arity: -3, write: false, run: (_, [body, ...rest]) => script(loaded(body!), rest) },
      EVALSHA: {
        arity: -3,
        write: false,
        run: (_, [sha, ...rest]) => {
          if (!this.engine.has(sha!.toLowerCase())) return new ErrorReply('NOSCRIPT No matching script. Please use EVAL.');
          return script(sha!.toLowerCase(), rest);
        },
      },
      SCRIPT: {
        arity: -2,
        write: false,
        run: (_, [sub, ...rest]) => {
          const word = sub!.toUpperCase();
          if (word === 'LOAD' && rest.length === 1) return loaded(rest[0]!);
          if (word === 'EXISTS' && rest.length > 0) return rest.map((sha) => (this.engine.has(sha.toLowerCase()) ? 1 : 0));
          if (word === 'FLUSH') {
            this.engine = new LuaEngine();
            return new StatusReply('OK');
          }
          throw new CommandError(`ERR unknown subcommand or wrong number of arguments for '${sub}'. Try SCRIPT HELP.`);
        },
      },
      PUBLISH: {
        arity: 3,
        write: false,
        run: (_, [channel, message]) => {
          const subscribers = [...(this.channels.get(channel!) ?? [])];
          for (const client of subscribers) client.receive(channel!, message!);
          return subscribers.length;
        },
      },
    };
  }
}
