import { PlayerClaims } from '../../src/cluster/in-process/index.js';
import { seededRandom } from '../../src/competitive/index.js';
import type { CoordinatorConfig } from '../../src/config/config.js';
import { CoordinatorCore } from '../../src/coordinator/coordinator-core.js';
import type { Effect, Step } from '../../src/coordinator/effects.js';
import type { FindRequest, ServerChannel, ServerEvent, ServerHello, TicketListener } from '../../src/coordinator/messages.js';
import type { TicketRecord } from '../../src/coordinator/ports.js';

/** A listener or a channel that is only a name: the core hands it back in effects, and never calls it. */
export interface Handle extends TicketListener, ServerChannel {
  readonly name: string;
}

export function handle(name: string): Handle {
  const refuse = () => {
    throw new Error(`the core called ${name}: it must hand it back in an effect instead`);
  };
  return { name, update: refuse, fail: refuse, send: refuse, close: refuse };
}

/** One input of the core, as recorded: what a replay feeds a fresh core. */
export type Input =
  | { readonly kind: 'find'; readonly at: number; readonly request: FindRequest; readonly listener: string }
  | { readonly kind: 'cancel'; readonly at: number; readonly ticketId: string }
  | { readonly kind: 'abandon'; readonly at: number; readonly ticketId: string; readonly listener: string }
  | { readonly kind: 'hello'; readonly at: number; readonly hello: ServerHello; readonly channel: string }
  | { readonly kind: 'bye'; readonly at: number; readonly serverId: string; readonly channel: string }
  | { readonly kind: 'event'; readonly at: number; readonly serverId: string; readonly event: ServerEvent }
  | { readonly kind: 'advance'; readonly at: number }
  | { readonly kind: 'shutdown'; readonly at: number };

/**
 * Drives a CoordinatorCore directly, as an edge would (player claims before a find, releases on
 * the core's effects), recording every input and every effect. Handles are names, so two drivers
 * fed the same inputs can compare their effect logs as text.
 */
export class CoreDriver {
  readonly core: CoordinatorCore;
  readonly inputs: Input[] = [];
  readonly effects: Effect[] = [];
  private readonly claims = new PlayerClaims();
  private readonly handles = new Map<string, Handle>();

  constructor(config: CoordinatorConfig, seed: string, restored: readonly TicketRecord[] = [], startAt = 1_000_000) {
    let id = 0;
    this.core = new CoordinatorCore(config, { newId: () => `${seed}-${++id}`, random: sequence(seed), solving: { climbClock: () => 0 } }, restored, startAt);
  }

  handle(name: string): Handle {
    let h = this.handles.get(name);
    if (!h) this.handles.set(name, (h = handle(name)));
    return h;
  }

  /** Feeds one input; returns its step (refusals included), after releasing what it says to release. */
  apply(input: Input): Step & { refused?: unknown } {
    this.inputs.push(input);
    const step = this.step(input);
    for (const effect of step.effects) {
      this.effects.push(effect);
      if (effect.kind === 'release') this.claims.release(effect.ticketId, effect.playerIds);
    }
    return step;
  }

  private step(input: Input): Step & { refused?: unknown } {
    const core = this.core;
    switch (input.kind) {
      case 'find': {
        const conflict = this.claims.claim(input.request.ticketId, input.request.party.map((p) => p.playerId));
        if (conflict) return { effects: [], wakeAt: core.nextWakeAt(), refused: `ALREADY_EXISTS ${conflict.playerId}` };
        return core.find(input.at, input.request, this.handle(input.listener));
      }
      case 'cancel':
        return core.cancel(input.at, input.ticketId);
      case 'abandon':
        return core.abandon(input.at, input.ticketId, this.handle(input.listener));
      case 'hello':
        return core.connectServer(input.at, input.hello, this.handle(input.channel));
      case 'bye':
        return core.disconnectServer(input.at, input.serverId, this.handle(input.channel));
      case 'event':
        return core.serverEvent(input.at, input.serverId, input.event);
      case 'advance':
        return core.advance(input.at);
      case 'shutdown':
        return core.beginShutdown(input.at);
    }
  }

  /** The effect log as text: handles by name, maps as entry lists, errors as code and message. */
  log(): string {
    return this.effects.map((e) => JSON.stringify(e, replacer)).join('\n');
  }
}

function replacer(this: unknown, key: string, value: unknown): unknown {
  if (value instanceof Map) return [...value];
  if (value instanceof Set) return [...value];
  if (value instanceof Error) return { code: (value as { code?: string }).code, message: value.message };
  if (value !== null && typeof value === 'object' && 'name' in value && 'update' in value && 'send' in value) return `#${(value as Handle).name}`;
  return value;
}

/** A seeded generator in [0, 1): the matcher's own (mulberry32), seeded by the string's FNV-1a hash. */
export function sequence(seed: string): () => number {
  return seededRandom([...seed].reduce((h, c) => Math.imul(h ^ c.charCodeAt(0), 16777619), 2166136261));
}
