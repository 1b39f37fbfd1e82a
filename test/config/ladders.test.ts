import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfigFile, parseConfig } from '../../src/config/load.js';
import { DEFAULT_ELO, DEFAULT_GLICKO2, DEFAULT_TRUESKILL } from '../../src/ratings/index.js';

const duel = (extra = '') =>
  `  - name: duel\n    competitive: { teams: 2, teamSize: 1, expansion: [{ afterSeconds: 0 }]${extra} }`;

function problem(yaml: string): string {
  try {
    parseConfig(yaml, 'bad.yaml');
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
  throw new Error('accepted');
}

describe('factories.yaml ladders', () => {
  it('fills in each system\'s defaults, which are the modules\' defaults', () => {
    const config = parseConfig(
      `ladders:\n  - { name: e, system: elo }\n  - { name: g, system: glicko2 }\n  - { name: t, system: trueskill, minGameSeconds: 30 }\nfactories:\n${duel(', ladder: g')}`,
    );
    expect(config.ladders!.get('e')).toEqual({ name: 'e', system: DEFAULT_ELO, minGameSeconds: 0, earlyLeaverCountsAsLoss: true });
    expect(config.ladders!.get('g')!.system).toEqual(DEFAULT_GLICKO2);
    expect(config.ladders!.get('t')).toMatchObject({ system: DEFAULT_TRUESKILL, minGameSeconds: 30 });
    expect(config.templates[0]!.ladder).toBe('g');
  });

  it('takes a system\'s parameters from its block', () => {
    const config = parseConfig(`ladders:\n  - { name: e, system: elo, elo: { kFactor: 16 } }\nfactories:\n${duel()}`);
    expect(config.ladders!.get('e')!.system).toEqual({ ...DEFAULT_ELO, kFactor: 16 });
    expect(config.templates[0]!.ladder).toBeUndefined();
  });

  it.each([
    ['an unknown system', 'ladders:\n  - { name: x, system: chess }', 'ladders[0].system', /elo|glicko2|trueskill/],
    ['parameters for another system', 'ladders:\n  - { name: x, system: elo, trueskill: { mu: 20 } }', 'ladders[0].trueskill', /system is elo/],
    ['a K-factor of 0', 'ladders:\n  - { name: x, system: elo, elo: { kFactor: 0 } }', 'ladders[0].elo.kFactor', />0/],
    ['an initial rating outside the bounds', 'ladders:\n  - { name: x, system: glicko2, glicko2: { initialRating: 3000 } }', 'ladders[0].glicko2.initialRating', /between minRating and maxRating/],
    ['a draw probability of 1', 'ladders:\n  - { name: x, system: trueskill, trueskill: { drawProbability: 1 } }', 'ladders[0].trueskill.drawProbability', /<1/],
    ['a negative minimum duration', 'ladders:\n  - { name: x, system: elo, minGameSeconds: -1 }', 'ladders[0].minGameSeconds', />=0/],
    ['duplicate ladder names', 'ladders:\n  - { name: x, system: elo }\n  - { name: x, system: elo }', 'ladders', /unique/],
  ])('refuses %s, naming %s', (_, ladders, path, message) => {
    const text = problem(`${ladders}\nfactories:\n${duel()}`);
    expect(text).toContain(`at ${path}:`);
    expect(text).toMatch(message);
  });

  it('refuses a template naming a ladder that does not exist', () => {
    const text = problem(`factories:\n${duel(', ladder: nope')}`);
    expect(text).toContain('at factories[0].competitive.ladder: no ladder named "nope"');
  });

  it('the shipped factories.yaml has a ranked Glicko-2 ladder on the duel template', () => {
    const config = loadConfigFile('factories.yaml');
    const ladder = config.ladders!.get('duel-ranked')!;
    expect(ladder.system.kind).toBe('glicko2');
    expect(ladder.minGameSeconds).toBe(60);
    expect(config.templates.find((t) => t.name === 'duel')!.ladder).toBe('duel-ranked');
  });
});
