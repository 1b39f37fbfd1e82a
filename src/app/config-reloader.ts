import { Counter, Gauge, type Registry } from 'prom-client';
import type { CoordinatorConfig } from '../config/config.js';
import { ConfigError, loadConfigFile } from '../config/load.js';
import type { ReloadOutcome } from '../coordinator/config-reload.js';
import type { Log } from '../coordinator/ports.js';

/** How one reload ended; `invalid` carries the text `gamefactory check` prints for the same file. */
export type ReloadResult =
  | { readonly outcome: 'applied' | 'unchanged'; readonly path: string; readonly changes: readonly string[] }
  | { readonly outcome: 'invalid'; readonly path: string; readonly error: string }
  | { readonly outcome: 'refused'; readonly path: string; readonly problems: readonly string[] };

export interface ConfigReloaderOptions {
  /** The file the process started with. */
  readonly path: string;
  readonly config: CoordinatorConfig;
  readonly log: Log;
  readonly registry: Registry;
  /** Hands a valid file's config to the running core, which applies it whole or refuses it whole. */
  readonly apply: (next: CoordinatorConfig) => ReloadOutcome;
}

/**
 * The edge of a live reload (SIGHUP, Admin.ReloadConfig): reads and validates the file (I/O and
 * parsing stay out of the core), hands a valid config to the core as an input, and counts and logs
 * the outcome. Reloads are synchronous and one at a time: the core is single-threaded.
 */
export class ConfigReloader {
  private running: CoordinatorConfig;
  private readonly reloads: Counter<'outcome'>;
  private readonly lastSuccessful: Gauge;

  constructor(private readonly options: ConfigReloaderOptions) {
    this.running = options.config;
    const registers = [options.registry];
    this.reloads = new Counter({
      name: 'gamefactory_config_reloads_total',
      help: 'Configuration reloads (SIGHUP, Admin.ReloadConfig) by outcome: applied, unchanged, invalid (the file does not validate), refused (a setting cannot change live)',
      labelNames: ['outcome'],
      registers,
    });
    for (const outcome of ['applied', 'unchanged', 'invalid', 'refused']) this.reloads.inc({ outcome }, 0);
    this.lastSuccessful = new Gauge({
      name: 'gamefactory_config_last_reload_successful',
      help: '1 when the last reload applied (or the process has not reloaded since it started), 0 when it was refused: the file on disk is not what runs',
      registers,
    });
    this.lastSuccessful.set(1);
  }

  /** The configuration running now: the one a cluster node builds its next core with. */
  get config(): CoordinatorConfig {
    return this.running;
  }

  reload(trigger: string): ReloadResult {
    const { path, log } = this.options;
    const result = this.attempt(path);
    this.reloads.inc({ outcome: result.outcome });
    this.lastSuccessful.set(result.outcome === 'applied' || result.outcome === 'unchanged' ? 1 : 0);
    switch (result.outcome) {
      case 'applied':
      case 'unchanged':
        log.info({ trigger, path, changes: result.changes }, result.outcome === 'applied' ? 'configuration reloaded' : 'configuration reloaded: nothing changed');
        break;
      case 'invalid':
        log.warn({ trigger, path }, `configuration reload refused, the running configuration is unchanged: ${result.error}`);
        break;
      case 'refused':
        log.warn({ trigger, path, problems: result.problems }, 'configuration reload refused: some settings cannot change live; the running configuration is unchanged');
        break;
    }
    return result;
  }

  private attempt(path: string): ReloadResult {
    let next: CoordinatorConfig;
    try {
      next = loadConfigFile(path);
    } catch (error) {
      if (error instanceof ConfigError) return { outcome: 'invalid', path, error: error.message };
      throw error;
    }
    const outcome = this.options.apply(next);
    if ('refused' in outcome) return { outcome: 'refused', path, problems: outcome.refused };
    this.running = next;
    return { outcome: outcome.changes.length > 0 ? 'applied' : 'unchanged', path, changes: outcome.changes };
  }
}
