import type { AttributeSet } from '../attributes/attribute-value.js';
import { displayValue } from '../attributes/attribute-value.js';
import type { CoordinatorConfig, FactoryTemplate, PlacementSettings } from './config.js';
import { sameValue } from './same-value.js';

/** A live factory of the running config: its template's name and its partition (one value per axis). */
export interface LiveFactory {
  readonly template: string;
  readonly name: string;
  readonly partition: AttributeSet;
}

/**
 * What a reload would do to a running coordinator, or why it cannot: `changes` in words for the
 * log and the Admin answer, `problems` each naming the path in factories.yaml.
 */
export type ReloadPlan =
  | { readonly ok: true; readonly changes: readonly string[] }
  | { readonly ok: false; readonly problems: readonly string[] };

/**
 * Settings read once when the process starts (listening sockets, interceptors, rating boards):
 * a change needs a restart.
 */
const READ_AT_START: readonly { readonly path: string; readonly get: (c: CoordinatorConfig) => unknown; readonly why: string }[] = [
  { path: 'servers', get: (c) => c.servers, why: 'game-server links keep the interval they were opened with' },
  { path: 'grpc', get: (c) => c.grpc, why: 'the gRPC server is built with it' },
  { path: 'http', get: (c) => c.http, why: 'the HTTP gateway is built with it' },
  { path: 'ladders', get: (c) => c.ladders ?? new Map(), why: 'rating boards are built from it at start' },
  { path: 'security', get: (c) => c.security, why: 'the interceptors are built with it' },
  { path: 'limits', get: (c) => c.limits, why: 'the interceptors are built with it' },
  { path: 'placement.policy', get: (c) => c.placement.policy, why: "the slot ledger's order is built on it" },
];

/**
 * Compares the running config with a new one, given the factories that are live now. Pure.
 *
 * What may change live: templates added; templates removed or changed while none of their
 * factories is live; for a live template, the allowed values of an axis (added, or removed when no
 * live factory has them) and every competitive setting except `teams`, `teamSize` and `ladder`;
 * every `placement` setting but the policy. Everything else needs
 * the template's factories gone (their servers left) or a restart; see docs/configuration.md.
 */
export function planReload(current: CoordinatorConfig, next: CoordinatorConfig, live: readonly LiveFactory[]): ReloadPlan {
  const problems: string[] = [];
  const changes: string[] = [];
  for (const setting of READ_AT_START) {
    if (!sameValue(setting.get(current), setting.get(next))) problems.push(`${setting.path}: cannot change live (${setting.why}); restart to change it`);
  }
  // A top-level section this plan does not know is read at start until shown otherwise.
  const known = new Set(['templates', 'placement', ...READ_AT_START.map((r) => r.path.split('.')[0]!)]);
  for (const key of new Set([...Object.keys(current), ...Object.keys(next)])) {
    if (known.has(key)) continue;
    const [was, now] = [(current as unknown as Record<string, unknown>)[key], (next as unknown as Record<string, unknown>)[key]];
    if (!sameValue(was, now)) problems.push(`${key}: cannot change live; restart to change it`);
  }
  // Placement settings other than the policy are read where they are used: live from the next find or creation.
  for (const key of new Set([...Object.keys(current.placement), ...Object.keys(next.placement)]) as Set<keyof PlacementSettings>) {
    if (key === 'policy') continue;
    const [was, now] = [current.placement[key], next.placement[key]];
    if (sameValue(was, now)) continue;
    if (key === 'ticketTtlMs') changes.push(`placement.ticketTtlSeconds: ${Number(was) / 1000} -> ${Number(now) / 1000} (tickets from now on)`);
    else changes.push(`placement.${key}: ${String(was ?? 'default')} -> ${String(now ?? 'default')}`);
  }

  const liveByTemplate = new Map<string, LiveFactory[]>();
  for (const f of live) {
    const list = liveByTemplate.get(f.template);
    if (list) list.push(f);
    else liveByTemplate.set(f.template, [f]);
  }
  const nextByName = new Map(next.templates.map((t) => [t.name, t]));
  for (const was of current.templates) {
    const factories = liveByTemplate.get(was.name) ?? [];
    const now = nextByName.get(was.name);
    if (now === undefined) {
      if (factories.length > 0) problems.push(`factories[${was.name}]: cannot be removed while ${liveFactories(factories)}`);
      else changes.push(`template "${was.name}" removed`);
      continue;
    }
    const differences = templateDifferences(was, now, factories);
    problems.push(...differences.problems.map((p) => `factories[${was.name}].${p}`));
    if (differences.changed.length > 0) changes.push(`template "${was.name}": ${differences.changed.join(', ')} changed`);
  }
  const running = new Set(current.templates.map((t) => t.name));
  for (const t of next.templates) if (!running.has(t.name)) changes.push(`template "${t.name}" added`);

  return problems.length > 0 ? { ok: false, problems } : { ok: true, changes };
}

/** The settings of a template that differ, and those that may not while `live` factories exist. */
function templateDifferences(was: FactoryTemplate, now: FactoryTemplate, live: readonly LiveFactory[]): { changed: string[]; problems: string[] } {
  const changed: string[] = [];
  const problems: string[] = [];
  const isLive = live.length > 0;
  const fixed = (path: string, same: boolean, why: string) => {
    if (same) return;
    changed.push(path);
    if (isLive) problems.push(`${path}: cannot change while ${liveFactories(live)} (${why})`);
  };

  const keys = (t: FactoryTemplate) => t.axes.map((a) => a.key);
  fixed('partitioning', sameValue(keys(was), keys(now)), 'its factories, their servers and tickets are keyed by these axes');
  if (sameValue(keys(was), keys(now)) && !sameValue(was.axes, now.axes)) {
    changed.push('partitioning values');
    for (const axis of now.axes) {
      const allowed = new Set(axis.values);
      const stranded = live.filter((f) => !allowed.has(f.partition.get(axis.key)!));
      if (stranded.length > 0) {
        const values = [...new Set(stranded.map((f) => displayValue(f.partition.get(axis.key)!)))].map((v) => `"${v}"`).join(', ');
        problems.push(`partitioning.${axis.key}: cannot drop ${values} while ${liveFactories(stranded)}`);
      }
    }
  }
  fixed('matchable', sameValue(was.matchableKeys, now.matchableKeys), 'open games are indexed by these keys');
  if (was.strategy.kind !== now.strategy.kind) {
    fixed(now.strategy.kind, false, 'a factory keeps its matcher');
  } else if (was.strategy.kind === 'cooperative' && now.strategy.kind === 'cooperative') {
    // The open-game index is built on maxPlayers and order; reservations in force keep their deadline.
    // One line per setting, so a refusal names each.
    const [a, b] = [was.strategy.settings, now.strategy.settings];
    for (const key of Object.keys({ ...a, ...b }) as (keyof typeof a)[]) {
      fixed(`cooperative.${key}`, sameValue(a[key], b[key]), 'open games are indexed by its settings');
    }
  } else if (was.strategy.kind === 'competitive' && now.strategy.kind === 'competitive') {
    const [a, b] = [was.strategy.settings, now.strategy.settings];
    fixed('competitive.teams', a.teams === b.teams, 'games in creation are laid out by it');
    fixed('competitive.teamSize', a.teamSize === b.teamSize, 'parties waiting were accepted by it');
    fixed('competitive.ladder', was.ladder === now.ladder, 'waiting tickets took their scores from it');
    const rest = (s: typeof a) => ({ ...s, teams: 0, teamSize: 0 });
    if (!sameValue(rest(a), rest(b))) {
      const settings = Object.keys({ ...a, ...b }) as (keyof typeof a)[];
      changed.push(...settings.filter((k) => k !== 'teams' && k !== 'teamSize' && !sameValue(a[k], b[k])).map((k) => `competitive.${k}`));
    }
  }
  return { changed, problems };
}

function liveFactories(factories: readonly LiveFactory[]): string {
  const names = factories.slice(0, 3).map((f) => f.name).join(', ');
  const more = factories.length > 3 ? ` and ${factories.length - 3} more` : '';
  return `${factories.length} of its factories ${factories.length === 1 ? 'is' : 'are'} live (${names}${more}: game servers serve them or tickets wait in them)`;
}
