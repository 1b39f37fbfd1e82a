import type { MemoryRedisClient } from './client.js';
import { METHODS, transformOf, words, type Arg, type MethodName, type Transform } from './client-replies.js';
import type { Reply } from './reply.js';

export type BatchMethods = { [K in MethodName]: (...args: Arg[]) => Batch };

export interface Batch extends BatchMethods {}

/**
 * ioredis' `multi()` (MULTI/EXEC: refused whole on a command Redis would not queue, else run
 * whole) and `pipeline()`. `exec()` answers [error] or [null, result] per command, as ioredis.
 * A defined script runs in one by EVAL of its body (ioredis loads it first; the effect is the same).
 * A pipeline also runs as one step here: on Redis another client's command may fall between
 * two of its commands, which no adapter relies on.
 */
export class Batch {
  private readonly queued: { args: string[]; transform: Transform | undefined }[] = [];

  constructor(
    private readonly client: MemoryRedisClient,
    private readonly atomic: boolean,
  ) {
    for (const [name, script] of client.scripts) {
      (this as unknown as Record<string, unknown>)[name] = (...args: Arg[]) => {
        const rest = words(args);
        return this.add(['EVAL', script.lua, ...(script.numberOfKeys === undefined ? rest : [String(script.numberOfKeys), ...rest])]);
      };
    }
  }

  add(args: string[], transform?: Transform): this {
    this.queued.push({ args, transform });
    return this;
  }

  call(command: string, ...args: Arg[]): this {
    return this.add([command, ...words(args)], transformOf(command));
  }

  get length(): number {
    return this.queued.length;
  }

  async exec(): Promise<[Error | null, unknown][]> {
    const commands = this.queued.map((q) => q.args);
    const server = this.client.server;
    const run = (): Reply => (this.atomic ? server.transaction(commands) : commands.map((args) => server.execute(args)));
    const replies = (await this.client.request(this.atomic ? ['EXEC'] : ['PIPELINE'], run, (shaped) => shaped)) as unknown[];
    return replies.map((reply, i) => {
      if (reply instanceof Error) {
        Object.assign(reply, { command: { name: commands[i]![0]!.toLowerCase(), args: commands[i]!.slice(1) } });
        return [reply] as unknown as [Error | null, unknown];
      }
      const transform = this.queued[i]!.transform;
      return [null, transform ? transform(reply) : reply];
    });
  }
}

for (const method of METHODS) {
  (Batch.prototype as unknown as Record<string, unknown>)[method] = function (this: Batch, ...args: Arg[]) {
    return this.add([method.toUpperCase(), ...words(args)], transformOf(method));
  };
}

