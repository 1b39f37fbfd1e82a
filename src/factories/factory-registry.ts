import { displayValue, type AttributeSet, type ValueKey } from '../attributes/attribute-value.js';
import type { FactoryTemplate } from '../config/config.js';
import { MatchmakingError, invalidArgument } from '../errors/index.js';

/**
 * Factories are partitions (Battle.net talk, "Game Factories"): specified in configuration,
 * instantiated in response to server connections, combinatorial on relatively few axes, and
 * reference-counted by the servers that can host them.
 */
export interface FactoryIdentity {
  /** e.g. "diablo/difficulty=hard/hardcore=false/version=v201" */
  readonly name: string;
  readonly template: FactoryTemplate;
  /** Axis key -> value of this partition. */
  readonly partition: AttributeSet;
}

export function factoryName(template: FactoryTemplate, partition: AttributeSet): string {
  return [template.name, ...template.axes.map((a) => `${a.key}=${displayValue(partition.get(a.key)!)}`)].join('/');
}

/** Axis value -> the next axis' trie, or the factory's name after the last axis. */
type NameTrie = Map<ValueKey, NameTrie | string>;

interface LiveFactory<T> {
  identity: FactoryIdentity;
  readonly servers: Set<string>;
  readonly state: T;
}

export class FactoryRegistry<T> {
  private readonly templates = new Map<string, FactoryTemplate>();
  /** Allowed values per template and axis, for O(1) selection checks. */
  private readonly allowed = new Map<string, Map<string, Set<ValueKey>>>();
  private readonly live = new Map<string, LiveFactory<T>>();
  /**
   * Factory names already resolved, per template: a trie of the partition's values in axis order
   * (value keys, already strings), ending at the name. Building the name for every find (a list,
   * a display string per axis, a join) was ~0.7 KB of garbage a ticket. Only partitions that
   * passed the checks are added, so the trie holds at most the template's factories.
   */
  private resolved = new Map<string, NameTrie>();

  constructor(
    templates: readonly FactoryTemplate[],
    /** Builds the per-factory state (its matcher) when the factory is instantiated. */
    private readonly instantiate: (identity: FactoryIdentity) => T,
    /**
     * The factories this registry serves, of all a server can host (a shard's core: its own
     * shard's). Absent: all of them.
     */
    private readonly serves?: (name: string) => boolean,
  ) {
    this.setTemplates(templates);
  }

  /**
   * A reload's templates replace the running ones; each live factory keeps its name, partition,
   * servers and state, and takes its template's new version (returned, with its state, for the
   * caller to reconfigure). The caller has checked that every live factory's template and
   * partition still exist (src/config/reload-plan.ts).
   */
  replaceTemplates(templates: readonly FactoryTemplate[]): { identity: FactoryIdentity; state: T }[] {
    this.setTemplates(templates);
    const changed: { identity: FactoryIdentity; state: T }[] = [];
    for (const factory of this.live.values()) {
      const template = this.templates.get(factory.identity.template.name)!;
      if (template === factory.identity.template) continue;
      factory.identity = { ...factory.identity, template };
      changed.push({ identity: factory.identity, state: factory.state });
    }
    return changed;
  }

  private setTemplates(templates: readonly FactoryTemplate[]): void {
    this.resolved = new Map();
    this.templates.clear();
    this.allowed.clear();
    for (const t of templates) {
      this.templates.set(t.name, t);
      this.allowed.set(t.name, new Map(t.axes.map((a) => [a.key, new Set(a.values)])));
    }
  }

  /** The live factories' identities (for a reload's plan). */
  liveIdentities(): FactoryIdentity[] {
    return [...this.live.values()].map((f) => f.identity);
  }

  /**
   * The factories a server can host: for every template it offers (all, when `templates` is
   * empty), every combination of axis values, where an axis the server names is fixed to its
   * value and an axis it does not name takes every allowed value. A server attribute value
   * outside the allowed ones means it hosts nothing of that template.
   */
  hostable(serverAttributes: AttributeSet, templates: readonly string[]): FactoryIdentity[] {
    const offered = templates.length === 0 ? [...this.templates.values()] : templates.map((n) => this.templates.get(n));
    const result: FactoryIdentity[] = [];
    for (const template of offered) {
      if (!template) continue;
      let partitions: Map<string, ValueKey>[] = [new Map()];
      for (const axis of template.axes) {
        const fixed = serverAttributes.get(axis.key);
        const values = fixed === undefined ? axis.values : axis.values.includes(fixed) ? [fixed] : [];
        partitions = partitions.flatMap((p) => values.map((v) => new Map(p).set(axis.key, v)));
      }
      for (const partition of partitions) {
        const name = factoryName(template, partition);
        if (this.serves === undefined || this.serves(name)) result.push({ name, template, partition });
      }
    }
    return result;
  }

  /**
   * What is wrong with a server's hello attributes, by the config's templates alone (whichever node
   * owns what): a key no template partitions by, a value no template with that axis allows, or
   * attributes that leave none of the offered templates a factory. A typo must not widen what a
   * server hosts (an axis it misnames takes every value) nor leave it connected hosting nothing.
   */
  attributeProblems(serverAttributes: AttributeSet, templates: readonly string[]): string[] {
    const problems: string[] = [];
    const all = [...this.templates.values()];
    const knownKeys = [...new Set(all.flatMap((t) => t.axes.map((a) => a.key)))].sort();
    for (const [key, value] of serverAttributes) {
      const axes = all.flatMap((t) => t.axes.filter((a) => a.key === key));
      if (axes.length === 0) {
        problems.push(`hello.attributes[${key}]: no template partitions by "${key}" (known keys: ${knownKeys.join(', ') || 'none'})`);
      } else if (!axes.some((a) => a.values.includes(value))) {
        const allowed = [...new Set(axes.flatMap((a) => a.values.map(displayValue)))];
        problems.push(`hello.attributes[${key}]: "${displayValue(value)}" is allowed by no template (allowed: ${allowed.join(', ')})`);
      }
    }
    const offered = templates.length === 0 ? all : templates.flatMap((n) => this.templates.get(n) ?? []);
    const hostsOne = (t: FactoryTemplate) => t.axes.every((a) => !serverAttributes.has(a.key) || a.values.includes(serverAttributes.get(a.key)!));
    if (problems.length === 0 && offered.length > 0 && !offered.some(hostsOne)) {
      const which = templates.length === 0 ? 'no template' : `none of the templates it offers (${templates.join(', ')})`;
      problems.push(`hello: this server would host no factory: ${which} allows all of its attributes together`);
    }
    return problems;
  }

  /** Templates named by a server that the config does not know. */
  unknownTemplates(templates: readonly string[]): string[] {
    return templates.filter((n) => !this.templates.has(n));
  }

  /** Adds a server's reference to each factory, instantiating those that were not live. */
  attach(serverId: string, identities: readonly FactoryIdentity[]): void {
    for (const identity of identities) {
      let factory = this.live.get(identity.name);
      if (!factory) {
        factory = { identity, servers: new Set(), state: this.instantiate(identity) };
        this.live.set(identity.name, factory);
      }
      factory.servers.add(serverId);
    }
  }

  /** Drops a server's references. Returns the factories no server serves any more. */
  detach(serverId: string, names: Iterable<string>): string[] {
    const orphaned: string[] = [];
    for (const name of names) {
      const factory = this.live.get(name);
      if (!factory) continue;
      factory.servers.delete(serverId);
      if (factory.servers.size === 0) orphaned.push(name);
    }
    return orphaned;
  }

  /** Removes a factory that no server serves, once the caller has nothing left in it. */
  drain(name: string): boolean {
    const factory = this.live.get(name);
    if (!factory || factory.servers.size > 0) return false;
    return this.live.delete(name);
  }

  get(name: string): T | undefined {
    return this.live.get(name)?.state;
  }

  identity(name: string): FactoryIdentity | undefined {
    return this.live.get(name)?.identity;
  }

  servers(name: string): ReadonlySet<string> {
    return this.live.get(name)?.servers ?? new Set();
  }

  names(): IterableIterator<string> {
    return this.live.keys();
  }

  get size(): number {
    return this.live.size;
  }

  template(name: string): FactoryTemplate | undefined {
    return this.templates.get(name);
  }

  templateNames(): string[] {
    return [...this.templates.keys()];
  }

  /**
   * Selects exactly one factory from a request's template and partitioning attributes: O(number
   * of axes), a hash look-up. Errors name the field: an unknown template or value is NOT_FOUND,
   * a factory no connected server serves is FAILED_PRECONDITION.
   */
  select(templateName: string, partition: AttributeSet): { name: string; state: T } {
    const name = this.resolve(templateName, partition);
    const factory = this.live.get(name);
    if (!factory || factory.servers.size === 0) {
      throw new MatchmakingError('FAILED_PRECONDITION', `no connected game server serves ${name}`);
    }
    return { name, state: factory.state };
  }

  /** The name of the factory a request selects, whether or not it is live; throws as select does. */
  resolve(templateName: string, partition: AttributeSet): string {
    const template = this.resolveTemplate(templateName);
    // Every axis is required and keys are unique: as many keys as axes, all found, means no other key.
    if (partition.size === template.axes.length) {
      let node: NameTrie | string | undefined = this.resolved.get(template.name);
      for (let i = 0; i < template.axes.length && node instanceof Map; i++) {
        const value = partition.get(template.axes[i]!.key);
        node = value === undefined ? undefined : node.get(value);
      }
      if (typeof node === 'string') return node;
    }
    const name = this.resolveInFull(template, partition);
    let node = this.resolved.get(template.name);
    if (node === undefined) this.resolved.set(template.name, (node = new Map()));
    const last = template.axes.length - 1;
    for (let i = 0; i <= last; i++) {
      const value = partition.get(template.axes[i]!.key)!;
      if (i === last) {
        node.set(value, name);
        break;
      }
      let next = node.get(value);
      if (!(next instanceof Map)) node.set(value, (next = new Map()));
      node = next;
    }
    return name;
  }

  private resolveInFull(template: FactoryTemplate, partition: AttributeSet): string {
    const allowed = this.allowed.get(template.name)!;
    for (const key of partition.keys()) {
      if (!allowed.has(key)) {
        throw invalidArgument(
          `partition_attributes[${key}]`,
          `not an axis of template "${template.name}" (axes: ${[...allowed.keys()].join(', ') || 'none'})`,
        );
      }
    }
    for (const axis of template.axes) {
      const value = partition.get(axis.key);
      if (value === undefined) {
        throw invalidArgument(`partition_attributes[${axis.key}]`, `required by template "${template.name}"`);
      }
      if (!allowed.get(axis.key)!.has(value)) {
        throw new MatchmakingError(
          'NOT_FOUND',
          `partition_attributes[${axis.key}]: "${displayValue(value)}" (${kindOf(value)}) is not a value of template "${template.name}" (allowed: ${axis.values.map(displayValue).join(', ')})`,
        );
      }
    }
    return factoryName(template, partition);
  }

  /** The template a request names; may be left out when the config has only one. */
  resolveTemplate(templateName: string): FactoryTemplate {
    if (templateName === '') {
      if (this.templates.size === 1) return this.templates.values().next().value!;
      throw invalidArgument('template', `required: one of ${this.templateNames().join(', ')}`);
    }
    const template = this.templates.get(templateName);
    if (!template) {
      throw new MatchmakingError(
        'NOT_FOUND',
        `template: "${templateName}" is not in the configuration (known: ${this.templateNames().join(', ')})`,
      );
    }
    return template;
  }
}

function kindOf(value: ValueKey): string {
  return { 's:': 'string', 'i:': 'int', 'd:': 'double', 'b:': 'bool', 'x:': 'bytes' }[value.slice(0, 2)] ?? 'value';
}
