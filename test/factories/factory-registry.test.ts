import { describe, expect, it } from 'vitest';
import { valueKey } from '../../src/attributes/attribute-value.js';
import { parseConfig } from '../../src/config/load.js';
import { MatchmakingError } from '../../src/errors/index.js';
import { FactoryRegistry } from '../../src/factories/factory-registry.js';

const config = parseConfig(`
factories:
  - name: diablo
    partitioning:
      difficulty: [normal, hard, torment]
      hardcore: [false, true]
      version: [v201, v202]
    cooperative: { maxPlayers: 4 }
  - name: duel
    partitioning: { version: [v201, v202] }
    competitive: { teams: 2, teamSize: 1, expansion: [{ afterSeconds: 0 }] }
`);

const s = (value: string) => valueKey({ kind: 'string', value });
const b = (value: boolean) => valueKey({ kind: 'bool', value });
const attrs = (entries: Record<string, string>) => new Map(Object.entries(entries));

function registry() {
  const built: string[] = [];
  const r = new FactoryRegistry(config.templates, (identity) => {
    built.push(identity.name);
    return { name: identity.name };
  });
  return { r, built };
}

describe('factory instantiation', () => {
  it('expands a server combinatorially over the axes it does not fix', () => {
    const { r } = registry();
    const names = r.hostable(attrs({ version: s('v201') }), []).map((f) => f.name);
    expect(names).toHaveLength(3 * 2 + 1);
    expect(names).toContain('diablo/difficulty=hard/hardcore=true/version=v201');
    expect(names).toContain('duel/version=v201');
    expect(names.some((n) => n.includes('v202'))).toBe(false);
  });

  it('hosts only the templates a server offers, and nothing for a value outside the config', () => {
    const { r } = registry();
    expect(r.hostable(new Map(), ['duel']).map((f) => f.name)).toEqual(['duel/version=v201', 'duel/version=v202']);
    expect(r.hostable(attrs({ version: s('v999') }), [])).toEqual([]);
    expect(r.unknownTemplates(['duel', 'chess'])).toEqual(['chess']);
  });

  it('offers only the factories it serves (a shard\'s core), of all a server can host', () => {
    const r = new FactoryRegistry(config.templates, () => null, (name) => name.includes('hardcore=true'));
    const names = r.hostable(attrs({ version: s('v201') }), []).map((f) => f.name);
    expect(names).toHaveLength(3);
    expect(names.every((n) => n.includes('hardcore=true'))).toBe(true);
  });

  it('instantiates on demand, reference-counts servers, and drains when the last leaves', () => {
    const { r, built } = registry();
    const a = r.hostable(attrs({ version: s('v201') }), ['duel']);
    r.attach('server-a', a);
    r.attach('server-b', a);
    expect(built).toEqual(['duel/version=v201']);
    expect(r.detach('server-a', ['duel/version=v201'])).toEqual([]);
    expect(r.drain('duel/version=v201')).toBe(false);
    expect(r.detach('server-b', ['duel/version=v201'])).toEqual(['duel/version=v201']);
    expect(r.drain('duel/version=v201')).toBe(true);
    expect(r.size).toBe(0);
  });

  it('selects exactly one factory from the partitioning attributes', () => {
    const { r } = registry();
    r.attach('a', r.hostable(new Map(), []));
    const picked = r.select('diablo', attrs({ difficulty: s('hard'), hardcore: b(false), version: s('v202') }));
    expect(picked.name).toBe('diablo/difficulty=hard/hardcore=false/version=v202');
  });

  const refusals: { name: string; template: string; partition: Record<string, string>; code: string; message: RegExp }[] = [
    { name: 'unknown template', template: 'chess', partition: {}, code: 'NOT_FOUND', message: /template: "chess"/ },
    { name: 'template left out with several', template: '', partition: {}, code: 'INVALID_ARGUMENT', message: /template: required/ },
    {
      name: 'missing axis',
      template: 'duel',
      partition: {},
      code: 'INVALID_ARGUMENT',
      message: /partition_attributes\[version\]: required/,
    },
    {
      name: 'unknown axis',
      template: 'duel',
      partition: { version: s('v201'), mode: s('x') },
      code: 'INVALID_ARGUMENT',
      message: /partition_attributes\[mode\]: not an axis/,
    },
    {
      name: 'value outside the config',
      template: 'duel',
      partition: { version: s('v300') },
      code: 'NOT_FOUND',
      message: /partition_attributes\[version\]: "v300"/,
    },
    {
      name: 'value of the wrong type',
      template: 'diablo',
      partition: { difficulty: s('hard'), hardcore: s('false'), version: s('v201') },
      code: 'NOT_FOUND',
      message: /hardcore\]: "false" \(string\)/,
    },
    {
      name: 'no server serves it',
      template: 'duel',
      partition: { version: s('v202') },
      code: 'FAILED_PRECONDITION',
      message: /no connected game server serves duel\/version=v202/,
    },
  ];

  it.each(refusals)('refuses $name with $code naming the field', ({ template, partition, code, message }) => {
    const { r } = registry();
    r.attach('a', r.hostable(attrs({ version: s('v201') }), []));
    let error: unknown;
    try {
      r.select(template, attrs(partition));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(MatchmakingError);
    expect((error as MatchmakingError).code).toBe(code);
    expect((error as MatchmakingError).message).toMatch(message);
  });
});

describe('factory selection, remembered per partition', () => {
  it('resolves the same partition to the same name again, and a reload forgets what it resolved', () => {
    const { r } = registry();
    const partition = attrs({ difficulty: s('torment'), hardcore: b(false), version: s('v202') });
    expect(r.resolve('diablo', partition)).toBe('diablo/difficulty=torment/hardcore=false/version=v202');
    expect(r.resolve('diablo', new Map(partition))).toBe('diablo/difficulty=torment/hardcore=false/version=v202');
    expect(r.resolve('diablo', attrs({ difficulty: s('hard'), hardcore: b(false), version: s('v202') }))).toBe('diablo/difficulty=hard/hardcore=false/version=v202');
    // A known partition plus a key that is no axis, or minus one, is still refused.
    expect(() => r.resolve('diablo', new Map([...partition, ['mode', s('x')]]))).toThrow(/partition_attributes\[mode\]: not an axis/);
    expect(() => r.resolve('diablo', attrs({ difficulty: s('torment'), hardcore: b(false) }))).toThrow(/partition_attributes\[version\]: required/);
    expect(r.resolve('duel', attrs({ version: s('v201') }))).toBe('duel/version=v201');
    expect(r.resolve('duel', attrs({ version: s('v201') }))).toBe('duel/version=v201');
    const narrower = parseConfig(`
factories:
  - name: diablo
    partitioning:
      difficulty: [normal, hard]
      hardcore: [false, true]
      version: [v201, v202]
    cooperative: { maxPlayers: 4 }
`);
    r.replaceTemplates(narrower.templates);
    expect(() => r.resolve('diablo', partition)).toThrow(/"torment" \(string\) is not a value of template "diablo"/);
    expect(() => r.resolve('duel', attrs({ version: s('v201') }))).toThrow(/template: "duel" is not in the configuration/);
  });
});
