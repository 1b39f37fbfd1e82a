import { valueFromScalar, valueKey, type AttributeSet } from '../../attributes/attribute-value.js';
import type { CoordinatorConfig } from '../../config/config.js';
import { FactoryRegistry } from '../../factories/factory-registry.js';

/** `key=value` server attributes read the way factories.yaml reads scalars (true/false, integers, strings). */
export function serverAttributes(pairs: readonly string[]): AttributeSet {
  return new Map(
    pairs.map((pair) => {
      const at = pair.indexOf('=');
      if (at <= 0) throw new Error(`--server-attr: "${pair}" must be key=value`);
      const raw = pair.slice(at + 1);
      const scalar = raw === 'true' ? true : raw === 'false' ? false : /^-?\d+$/.test(raw) ? Number(raw) : raw;
      return [pair.slice(0, at), valueKey(valueFromScalar(scalar))];
    }),
  );
}

/**
 * The factories a game server with these attributes would instantiate, by the same rule the
 * coordinator applies at its hello; and the templates it offers that the config does not know.
 */
export function hostableFactories(config: CoordinatorConfig, attributes: AttributeSet, templates: readonly string[]): { factories: string[]; unknownTemplates: string[] } {
  const registry = new FactoryRegistry(config.templates, () => undefined);
  return {
    factories: registry.hostable(attributes, templates).map((f) => f.name),
    unknownTemplates: registry.unknownTemplates(templates),
  };
}

/** Factories per template: the product of its axes' values. */
export function factoriesPerTemplate(config: CoordinatorConfig): { template: string; strategy: string; factories: number }[] {
  return config.templates.map((t) => ({
    template: t.name,
    strategy: t.strategy.kind,
    factories: t.axes.reduce((n, axis) => n * axis.values.length, 1),
  }));
}
