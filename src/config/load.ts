import { readFileSync } from 'node:fs';
import { parseDocument } from 'yaml';
import { valueFromScalar, valueKey } from '../attributes/attribute-value.js';
import type { CoordinatorConfig, FactoryTemplate, Strategy } from './config.js';
import type { LadderConfig } from '../ratings/rating-system.js';
import {
  configSchema,
  eloDefaults,
  glicko2Defaults,
  trueskillDefaults,
  type RawConfig,
  type RawLadder,
  type RawTemplate,
} from './schema.js';

/** A configuration that cannot be used; the message names the file, the path in it and the problem. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export function loadConfigFile(path: string): CoordinatorConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(`${path}: cannot read: ${(err as Error).message}`);
  }
  return parseConfig(text, path);
}

/** parse -> validate -> normalise. Pure: `source` only names the text in error messages. */
export function parseConfig(text: string, source = 'factories.yaml'): CoordinatorConfig {
  const doc = parseDocument(text, { prettyErrors: true });
  if (doc.errors.length > 0) {
    throw new ConfigError(`${source}: invalid YAML: ${doc.errors.map((e) => e.message).join('; ')}`);
  }
  const result = configSchema.safeParse(doc.toJS());
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `  at ${formatPath(issue.path)}: ${issue.message}`);
    throw new ConfigError(`${source}: invalid configuration:\n${problems.join('\n')}`);
  }
  return normalise(result.data);
}

function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(top level)';
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i === 0 ? '' : '.'}${String(p)}`)).join('');
}

function normalise(raw: RawConfig): CoordinatorConfig {
  const ladders = new Map(raw.ladders.map((l) => [l.name, normaliseLadder(l)]));
  return {
    templates: raw.factories.map((t) => withLadderPerformance(normaliseTemplate(t), ladders)),
    placement: {
      policy: raw.placement.policy,
      createTimeoutMs: raw.placement.createTimeoutMs,
      maxQueuedPerFactory: raw.placement.maxQueuedPerFactory,
      maxPooledPerFactory: raw.placement.maxPooledPerFactory,
      ticketTtlMs: raw.placement.ticketTtlSeconds * 1000,
      storeInFlightAfterMs: raw.placement.storeInFlightAfterMs,
    },
    servers: { keepaliveIntervalMs: raw.servers.keepaliveIntervalMs, unknownAttributes: raw.servers.unknownAttributes },
    grpc: { ...raw.grpc },
    http: { corsOrigins: [...raw.http.corsOrigins] },
    ladders,
    security: raw.security,
    limits: raw.limits,
  };
}

/**
 * A competitive template on a ladder predicts its games' balance with the ladder's own model unless
 * it says otherwise: TrueSkill's beta, or for Elo and Glicko-2 the normal spread whose win curve
 * has the logistic's slope at an even game (scale / (ln 10 x 4) = phi(0) / (sqrt 2 x beta)).
 */
function withLadderPerformance(template: FactoryTemplate, ladders: ReadonlyMap<string, LadderConfig>): FactoryTemplate {
  const { strategy } = template;
  if (strategy.kind !== 'competitive' || strategy.settings.performanceSd !== undefined || template.ladder === undefined) return template;
  const system = ladders.get(template.ladder)?.system;
  if (system === undefined) return template;
  const scale = system.kind === 'elo' ? system.scale : 400;
  const performanceSd =
    system.kind === 'trueskill' ? system.beta : (4 * scale) / (Math.LN10 * Math.sqrt(2 * Math.PI) * Math.SQRT2);
  return { ...template, strategy: { kind: 'competitive', settings: { ...strategy.settings, performanceSd } } };
}

function normaliseLadder(raw: RawLadder): LadderConfig {
  const rules = { name: raw.name, minGameSeconds: raw.minGameSeconds, earlyLeaverCountsAsLoss: raw.earlyLeaverCountsAsLoss };
  // Parsing an empty block fills in every default.
  switch (raw.system) {
    case 'elo':
      return { ...rules, system: { kind: 'elo', ...(raw.elo ?? eloDefaults) } };
    case 'glicko2':
      return { ...rules, system: { kind: 'glicko2', ...(raw.glicko2 ?? glicko2Defaults) } };
    case 'trueskill':
      return { ...rules, system: { kind: 'trueskill', ...(raw.trueskill ?? trueskillDefaults) } };
  }
}

function normaliseTemplate(raw: RawTemplate): FactoryTemplate {
  return {
    name: raw.name,
    axes: Object.entries(raw.partitioning).map(([key, values]) => ({
      key,
      values: values.map((v) => valueKey(valueFromScalar(v))),
    })),
    matchableKeys: raw.matchable,
    strategy: normaliseStrategy(raw),
    ...(raw.competitive?.ladder !== undefined ? { ladder: raw.competitive.ladder } : {}),
    ...(raw.competitive?.acceptance && { acceptance: { timeoutMs: raw.competitive.acceptance.timeoutMs } }),
    ...(raw.competitive?.matchFunction && { matchFunction: { ...raw.competitive.matchFunction } }),
  };
}

function normaliseStrategy(raw: RawTemplate): Strategy {
  if (raw.cooperative) return { kind: 'cooperative', settings: { ...raw.cooperative } };
  const c = raw.competitive!;
  return {
    kind: 'competitive',
    settings: {
      teams: c.teams,
      teamSize: c.teamSize,
      teamScore: c.teamScore,
      batch: { ...c.batch },
      // Without an expansion (a target gives score windows), one step: any latency, from the start.
      expansion: (c.expansion ?? [{ afterSeconds: 0 }]).map((s) => ({
        afterMs: s.afterSeconds * 1000,
        maxScoreGap: s.maxScoreGap ?? Infinity,
        maxLatencyMs: s.maxLatencyMs ?? Infinity,
      })),
      hillClimbBudgetMs: c.hillClimbBudgetMs,
      maps: c.maps,
      regions: c.regions,
      ...(c.locality && {
        locality: {
          msPerKm: c.locality.msPerKm,
          baseMs: c.locality.baseMs,
          regionLocations: new Map(Object.entries(c.locality.regions)),
        },
      }),
      softPreferences: c.softPreferences,
      pairWindow: c.pairWindow ?? (c.target === undefined ? 'reciprocal' : 'budget'),
      ...(c.target && { target: { ...c.target } }),
      ...(c.playerLimits && { playerLimits: { waitBudgetMs: { ...c.playerLimits.waitBudgetMs }, maxLatencyMs: { ...c.playerLimits.maxLatencyMs } } }),
      ...(c.performanceSd !== undefined && { performanceSd: c.performanceSd }),
    },
  };
}
