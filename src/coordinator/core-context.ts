import type { CoordinatorConfig } from '../config/config.js';
import type { Deadlines } from './deadlines.js';
import type { EffectLog } from './effects.js';

/**
 * What the core's parts share while they handle an input: the config, the input's time, where
 * effects go, the deadlines, and the injected sources of ids and randomness. Built once by the
 * core, before its parts; nothing in it calls back into them.
 */
export interface CoreContext {
  /** Replaced whole by a reload (ConfigReload); read it at use, never keep a part of it. */
  config: CoordinatorConfig;
  /** The time of the input being handled: the core's clock. */
  now(): number;
  /** Where the parts write the step's effects (log lines included). */
  readonly out: EffectLog;
  readonly deadlines: Deadlines;
  /** Fresh unique ids for requests and reservation tokens. */
  readonly newId: () => string;
  readonly random: () => number;
  /** Factories this step may have left with nothing waiting: the core checks them at the step's end. */
  readonly maybeIdle: Set<string>;
}
