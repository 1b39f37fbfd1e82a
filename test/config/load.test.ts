import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfigFile, parseConfig } from '../../src/config/load.js';

const minimal = `
factories:
  - name: coop
    partitioning: { difficulty: [normal, hard] }
    matchable: [act]
    cooperative: { maxPlayers: 4 }
`;

/** Each invalid file names the file, the path inside it and the problem. */
const invalid: { name: string; yaml: string; path: string; problem: RegExp }[] = [
  { name: 'no factories', yaml: 'factories: []', path: 'factories', problem: /at least|>=1|too small/i },
  {
    name: 'both strategies',
    yaml: 'factories:\n  - name: x\n    cooperative: { maxPlayers: 2 }\n    competitive: { teams: 2, teamSize: 1, expansion: [{ afterSeconds: 0 }] }',
    path: 'factories[0]',
    problem: /exactly one strategy/,
  },
  { name: 'no strategy', yaml: 'factories:\n  - name: x', path: 'factories[0]', problem: /exactly one strategy/ },
  {
    name: 'zero players',
    yaml: 'factories:\n  - name: x\n    cooperative: { maxPlayers: 0 }',
    path: 'factories[0].cooperative.maxPlayers',
    problem: />=1/,
  },
  {
    name: 'unknown order',
    yaml: 'factories:\n  - name: x\n    cooperative: { maxPlayers: 4, order: sideways }',
    path: 'factories[0].cooperative.order',
    problem: /fill|spread/,
  },
  {
    name: 'typo in a key',
    yaml: 'factories:\n  - name: x\n    cooperative: { maxPlayer: 4 }',
    path: 'factories[0].cooperative',
    problem: /maxPlayer/,
  },
  {
    name: 'duplicate axis values',
    yaml: 'factories:\n  - name: x\n    partitioning: { v: [a, a] }\n    cooperative: { maxPlayers: 4 }',
    path: 'factories[0].partitioning.v',
    problem: /unique/,
  },
  {
    name: 'too many matchable keys',
    yaml: 'factories:\n  - name: x\n    matchable: [a, b, c, d, e, f, g]\n    cooperative: { maxPlayers: 4 }',
    path: 'factories[0].matchable',
    problem: /6/,
  },
  {
    name: 'matchable key that is also an axis',
    yaml: 'factories:\n  - name: x\n    partitioning: { a: [1] }\n    matchable: [a]\n    cooperative: { maxPlayers: 4 }',
    path: 'factories[0].matchable',
    problem: /partitioning axis/,
  },
  {
    name: 'expansion not starting at 0',
    yaml: 'factories:\n  - name: x\n    competitive: { teams: 2, teamSize: 1, expansion: [{ afterSeconds: 5 }] }',
    path: 'factories[0].competitive.expansion',
    problem: /afterSeconds: 0/,
  },
  {
    name: 'duplicate template names',
    yaml: 'factories:\n  - name: x\n    cooperative: { maxPlayers: 4 }\n  - name: x\n    cooperative: { maxPlayers: 2 }',
    path: 'factories',
    problem: /unique/,
  },
  {
    name: 'too many factories',
    yaml: `factories:\n  - name: x\n    partitioning: { a: [${Array.from({ length: 100 }, (_, i) => i)}], b: [${Array.from({ length: 100 }, (_, i) => i)}] }\n    cooperative: { maxPlayers: 4 }`,
    path: 'factories[0].partitioning',
    problem: /10000 factories/,
  },
];

describe('factories.yaml: parse -> validate -> normalise', () => {
  it('normalises a valid file: defaults filled in, values typed', () => {
    const config = parseConfig(minimal);
    expect(config.placement).toEqual({ policy: 'fill', createTimeoutMs: 5000, maxQueuedPerFactory: 100_000, maxPooledPerFactory: 100_000, ticketTtlMs: 300_000, storeInFlightAfterMs: 100 });
    const [template] = config.templates;
    expect(template!.axes).toEqual([{ key: 'difficulty', values: ['s:normal', 's:hard'] }]);
    expect(template!.strategy).toEqual({ kind: 'cooperative', settings: { maxPlayers: 4, order: 'fill', reservationMs: 10_000 } });
  });

  it('types scalars as the wire does: bools, ints, doubles, strings are different values', () => {
    const config = parseConfig('factories:\n  - name: x\n    partitioning: { a: [true, 3, 1.5, "3"] }\n    cooperative: { maxPlayers: 4 }');
    expect(config.templates[0]!.axes[0]!.values).toEqual(['b:true', 'i:3', 'd:1.5', 's:3']);
  });

  it('turns expansion seconds into ms and open limits into Infinity', () => {
    const config = parseConfig(
      'factories:\n  - name: duel\n    competitive: { teams: 2, teamSize: 1, expansion: [{ afterSeconds: 0, maxScoreGap: 100 }, { afterSeconds: 10 }] }',
    );
    const strategy = config.templates[0]!.strategy;
    expect(strategy.kind).toBe('competitive');
    if (strategy.kind === 'competitive') {
      expect(strategy.settings.expansion).toEqual([
        { afterMs: 0, maxScoreGap: 100, maxLatencyMs: Infinity },
        { afterMs: 10_000, maxScoreGap: Infinity, maxLatencyMs: Infinity },
      ]);
    }
  });

  it.each(invalid)('refuses $name, naming the file and the path', ({ yaml, path, problem }) => {
    let error: unknown;
    try {
      parseConfig(yaml, 'bad.yaml');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).toContain('bad.yaml');
    expect(message).toContain(`at ${path}`);
    expect(message).toMatch(problem);
  });

  it('refuses YAML that does not parse', () => {
    expect(() => parseConfig('factories: [', 'broken.yaml')).toThrow(/broken.yaml: invalid YAML/);
  });

  it('names a file that cannot be read', () => {
    expect(() => loadConfigFile('/nonexistent/factories.yaml')).toThrow(/\/nonexistent\/factories.yaml: cannot read/);
  });

  it('loads the shipped factories.yaml: the Diablo 3 case and a competitive 1v1', () => {
    const config = loadConfigFile('factories.yaml');
    const diablo = config.templates.find((t) => t.name === 'diablo')!;
    expect(diablo.axes.map((a) => a.key)).toEqual(['difficulty', 'hardcore', 'version']);
    expect(diablo.strategy).toMatchObject({ kind: 'cooperative', settings: { maxPlayers: 4 } });
    const duel = config.templates.find((t) => t.strategy.kind === 'competitive')!;
    expect(duel.strategy).toMatchObject({ settings: { teams: 2, teamSize: 1, softPreferences: [{ attribute: 'language', weight: 0.25 }] } });
    const settings = duel.strategy.kind === 'competitive' ? duel.strategy.settings : undefined;
    expect(settings?.locality?.regionLocations.get('eu-west')).toEqual({ latitude: 53.3, longitude: -6.3 });
    expect(settings?.locality?.msPerKm).toBe(0.02);
    // The shipped duel says what it wants instead of hand-tuning windows.
    expect(settings?.target).toEqual({ waitP99Ms: 10000 });
    expect(settings?.pairWindow).toBe('budget');
  });

  it('refuses a locality region that is not one of the regions, naming it', () => {
    const yaml = [
      'factories:',
      '  - name: duel',
      '    competitive:',
      '      teams: 2',
      '      teamSize: 1',
      '      expansion: [{ afterSeconds: 0 }]',
      '      regions: [eu-west]',
      '      locality: { regions: { mars: { latitude: 0, longitude: 0 } } }',
    ].join('\n');
    expect(() => parseConfig(yaml)).toThrow(/factories\[0\]\.competitive\.locality\.regions\.mars: "mars" is not one of regions/);
  });
  it('reads competitive pairWindow (default reciprocal) and refuses an unknown rule, naming the field', () => {
    const duel = (extra: string) =>
      ['factories:', '  - name: duel', '    competitive:', '      teams: 2', '      teamSize: 1', '      expansion: [{ afterSeconds: 0 }]', extra].join('\n');
    const settingsOf = (yaml: string) => {
      const strategy = parseConfig(yaml).templates[0]!.strategy;
      return strategy.kind === 'competitive' ? strategy.settings : undefined;
    };
    expect(settingsOf(duel(''))?.pairWindow).toBe('reciprocal');
    expect(settingsOf(duel('      pairWindow: longer-waiter'))?.pairWindow).toBe('longer-waiter');
    expect(() => parseConfig(duel('      pairWindow: widest'))).toThrow(/factories\[0\]\.competitive\.pairWindow/);
  });

  describe('wait targets, player limits, performance spread', () => {
    const duel = (...lines: string[]) => ['factories:', '  - name: duel', '    competitive:', '      teams: 2', '      teamSize: 1', ...lines.map((l) => `      ${l}`)].join('\n');
    const settingsOf = (yaml: string) => {
      const strategy = parseConfig(yaml).templates[0]!.strategy;
      return strategy.kind === 'competitive' ? strategy.settings : undefined;
    };

    it('a target needs no expansion, and pairs with the budget rule unless told otherwise', () => {
      const settings = settingsOf(duel('target: { waitP99Ms: 10000 }'))!;
      expect(settings.target).toEqual({ waitP99Ms: 10000 });
      expect(settings.pairWindow).toBe('budget');
      expect(settings.expansion).toEqual([{ afterMs: 0, maxScoreGap: Infinity, maxLatencyMs: Infinity }]);
      expect(settingsOf(duel('target: { waitP99Ms: 10000 }', 'pairWindow: mean'))!.pairWindow).toBe('mean');
    });

    it('a target keeps the expansion for latency caps and refuses score windows there, naming the step', () => {
      const settings = settingsOf(duel('target: { meanGapSigma: 0.1 }', 'expansion: [{ afterSeconds: 0, maxLatencyMs: 80 }, { afterSeconds: 5, maxLatencyMs: 200 }]'))!;
      expect(settings.expansion.map((s) => s.maxLatencyMs)).toEqual([80, 200]);
      expect(() => parseConfig(duel('target: { waitP99Ms: 5000 }', 'expansion: [{ afterSeconds: 0 }, { afterSeconds: 5, maxScoreGap: 100 }]'))).toThrow(
        /factories\[0\]\.competitive\.expansion\[1\]\.maxScoreGap: the target sets score windows; give only maxLatencyMs/,
      );
    });

    it('refuses a target it cannot meet or that says nothing, naming the field', () => {
      expect(() => parseConfig(duel('target: {}'))).toThrow(/competitive\.target: give waitP99Ms, meanWaitMs or meanGapSigma/);
      expect(() => parseConfig(duel('target: { waitP99Ms: 1000, meanWaitMs: 2000 }'))).toThrow(/competitive\.target\.meanWaitMs: must not exceed waitP99Ms/);
      expect(() => parseConfig(duel('target: { meanWaitMs: 1000, meanGapSigma: 0.1 }'))).toThrow(/competitive\.target\.meanGapSigma: give meanWaitMs or meanGapSigma, not both/);
      expect(() => parseConfig(duel('target: { waitP99Ms: -5 }'))).toThrow(/competitive\.target\.waitP99Ms/);
      expect(() => parseConfig(duel(''))).toThrow(/competitive\.expansion: give an expansion, or a target/);
    });

    it('player limits: bounds with defaults, min not above max', () => {
      const settings = settingsOf(duel('target: { waitP99Ms: 10000 }', 'playerLimits: { waitBudgetMs: { min: 2000, max: 60000 } }'))!;
      expect(settings.playerLimits).toEqual({ waitBudgetMs: { min: 2000, max: 60000 }, maxLatencyMs: { min: 1, max: 10000 } });
      expect(() => parseConfig(duel('target: { waitP99Ms: 10000 }', 'playerLimits: { maxLatencyMs: { min: 500, max: 100 } }'))).toThrow(
        /competitive\.playerLimits\.maxLatencyMs\.max: min must not exceed max/,
      );
    });

    it("performanceSd defaults to the ladder's own model: TrueSkill's beta, or Elo's logistic as a normal spread", () => {
      const laddered = (system: string, params: string) =>
        [
          'ladders:',
          `  - { name: l, system: ${system}${params} }`,
          'factories:',
          '  - name: duel',
          '    competitive: { teams: 2, teamSize: 1, target: { waitP99Ms: 10000 }, ladder: l }',
        ].join('\n');
      expect(settingsOf(laddered('trueskill', ', trueskill: { beta: 5 }'))!.performanceSd).toBe(5);
      expect(settingsOf(laddered('elo', ''))!.performanceSd).toBeCloseTo(196.02, 2);
      expect(settingsOf(duel('target: { waitP99Ms: 10000 }', 'performanceSd: 120'))!.performanceSd).toBe(120);
      expect(settingsOf(duel('target: { waitP99Ms: 10000 }'))!.performanceSd).toBeUndefined();
    });
  });
});
