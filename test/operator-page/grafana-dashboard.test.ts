import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIABLO_YAML, TestCoordinator } from '../integration/harness.js';

interface Dashboard {
  panels: { title: string; targets: { expr: string }[] }[];
  templating: { list: { definition?: string }[] };
}

/** Every sample name /metrics can show: histograms as _bucket/_sum/_count, summaries as _sum/_count too. */
function exposedNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const m of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    const [, name, type] = m;
    if (type === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(name + s);
    else if (type === 'summary') for (const s of ['', '_sum', '_count']) names.add(name + s);
    else names.add(name!);
  }
  return names;
}

describe('the Grafana dashboard', () => {
  let coordinator: TestCoordinator;
  beforeAll(async () => {
    coordinator = await TestCoordinator.start(DIABLO_YAML);
  });
  afterAll(async () => {
    await coordinator.stop();
  });

  it('uses only metric names that /metrics exposes', async () => {
    const dashboard = JSON.parse(readFileSync('ops/grafana/gamefactory.json', 'utf8')) as Dashboard;
    const exprs = [
      ...dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr)),
      ...dashboard.templating.list.flatMap((v) => (v.definition ? [v.definition] : [])),
    ];
    const used = new Set(exprs.flatMap((e) => [...e.matchAll(/\b(?:gamefactory|process|nodejs)_[a-z0-9_]+\b/g)].map((m) => m[0])));
    const text = await (await fetch(`http://127.0.0.1:${coordinator.running.metricsPort}/metrics`)).text();
    const exposed = exposedNames(text);
    expect([...used].filter((name) => !exposed.has(name))).toEqual([]);
    // Every gamefactory metric is on the dashboard somewhere.
    const ours = [...exposed].filter((n) => n.startsWith('gamefactory_') && !/_(sum|count)$/.test(n)).map((n) => n.replace(/_bucket$/, ''));
    expect(ours.filter((n) => ![...used].some((u) => u.startsWith(n)))).toEqual([]);
  });
});
