import { mkdirSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findGame } from '../support/find-game.js';
import { DIABLO_YAML, TestCoordinator, eventually } from '../integration/harness.js';
import { launchChromium } from './browser.js';

const QUEUED_FACTORY = 'diablo/difficulty=hard/hardcore=true/version=v202';
const QUEUED_TICKETS = 7;
const TINY_MAX_GAMES = 2;

async function getJson(url: string) {
  const res = await fetch(url);
  expect(res.status, url).toBe(200);
  return res.json();
}

/** The value of one gauge sample in Prometheus text, or undefined. */
function sample(text: string, name: string, factory: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{factory="${factory}"}`));
  return line === undefined ? undefined : Number(line.split(' ').at(-1));
}

describe('the operator page in a real browser against a real coordinator', () => {
  let coordinator: TestCoordinator;
  let browser: Browser;
  let base: string;
  let loading = true;
  const inFlight: Promise<unknown>[] = [];

  beforeAll(async () => {
    browser = await launchChromium();
    coordinator = await TestCoordinator.start(DIABLO_YAML);
    base = `http://127.0.0.1:${coordinator.running.metricsPort}`;
    // Games that end when full keep v201 busy; a tiny v202 server whose games never end makes a queue.
    await coordinator.server({ serverId: 'coop-eu-1', attributes: { version: 'v201' }, templates: ['diablo'], maxGames: 50 }, { autoJoin: true, endWhenFull: 4 });
    await coordinator.server({ serverId: 'duel-eu-1', attributes: { version: 'v201' }, templates: ['duel'], maxGames: 50, maxStartsPerSecond: 100 }, { autoJoin: true, endWhenFull: 2 });
    await coordinator.server({ serverId: 'tiny-v202', attributes: { version: 'v202' }, templates: ['diablo'], maxGames: TINY_MAX_GAMES }, { autoJoin: true });
    const client = coordinator.client();
    // Distinct quests: each of these tickets needs a game of its own, so all but two wait in line.
    for (let i = 0; i < QUEUED_TICKETS; i++) {
      inFlight.push(
        findGame(client, { ticketId: `q${i}`, template: 'diablo', party: [`q${i}`], partition: { difficulty: 'hard', hardcore: true, version: 'v202' }, matchable: { quest: `quest-${i}` } }).catch(() => {}),
      );
    }
    // Steady load on the v201 factories until the test ends.
    let n = 0;
    void (async () => {
      while (loading) {
        for (let k = 0; k < 4; k++, n++) {
          inFlight.push(
            findGame(client, { ticketId: `c${n}`, template: 'diablo', party: [`c${n}`], partition: { difficulty: n % 3 ? 'normal' : 'hard', hardcore: false, version: 'v201' } }).catch(() => {}),
          );
        }
        for (let k = 0; k < 2; k++, n++) {
          inFlight.push(
            findGame(client, { ticketId: `d${n}`, template: 'duel', party: [{ playerId: `d${n}`, score: 1500 + ((n * 37) % 300) }], partition: { version: 'v201' } }).catch(() => {}),
          );
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
  });

  afterAll(async () => {
    loading = false;
    await browser?.close();
    await coordinator?.stop();
    await Promise.allSettled(inFlight);
  });

  it('draws live charts, shows the same queue length as /api/overview and /metrics, and logs no console error', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1100 } });
    const problems: string[] = [];
    page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()}`));

    // The queue settles: two games run on the tiny server, the rest wait for a slot.
    const expectedQueue = QUEUED_TICKETS - TINY_MAX_GAMES;
    await eventually(() => coordinator.running.coordinator.view.queuedIn(QUEUED_FACTORY) === expectedQueue, 10_000);

    await page.goto(`${base}/`);
    // Several polls, and every chart has more than one point.
    await page.waitForFunction(
      () => {
        const p = (window as unknown as { operatorPage: { polls: number; charts: Record<string, { data: unknown[][] }> } }).operatorPage;
        return p.polls >= 3 && Object.values(p.charts).every((c) => c.data[0]!.length >= 3);
      },
      undefined,
      { timeout: 15_000 },
    );
    const points = await page.evaluate(() =>
      Object.fromEntries(
        Object.entries((window as unknown as { operatorPage: { charts: Record<string, { data: (number | null)[][] }> } }).operatorPage.charts).map(([id, c]) => [
          id,
          c.data.slice(1).map((s) => s.filter((v) => v !== null).length),
        ]),
      ),
    );
    // Running games and capacity are drawn with values, not just gaps.
    expect(points['chart-servers']![0]).toBeGreaterThanOrEqual(3);
    expect(points['chart-waiting']![1]).toBeGreaterThanOrEqual(3);
    // Player seats and game slots are two things, named apart: "open slots" beside "capacity" read as one.
    const text = await page.evaluate(() => document.body.innerText);
    expect(text).toContain('free seats');
    expect(text).toContain('game slots');
    expect(text).not.toMatch(/open slots|capacity/i);

    // Find the queued factory with the filter box and read its queue length.
    await page.fill('#factory-filter', 'hardcore=true/version=v202');
    const cell = page.locator(`#factories tr[data-factory="${QUEUED_FACTORY}"] td[data-field="queueLength"]`);
    await cell.waitFor({ timeout: 5000 });
    await page.waitForFunction((want) => document.querySelector(`#factories td[data-field="queueLength"]`)?.textContent === want, String(expectedQueue), { timeout: 5000 });
    const onPage = Number(await cell.textContent());

    const api = await getJson(`${base}/api/overview?factory_filter=${encodeURIComponent(QUEUED_FACTORY)}`);
    const onApi = api.factories.rows.find((f: { name: string }) => f.name === QUEUED_FACTORY).queueLength;
    const metricsText = await (await fetch(`${base}/metrics`)).text();
    const onMetrics = sample(metricsText, 'gamefactory_queue_depth', QUEUED_FACTORY);
    expect({ onPage, onApi, onMetrics }).toEqual({ onPage: expectedQueue, onApi: expectedQueue, onMetrics: expectedQueue });

    // The load shows: assignments timed, games created, servers listed with their health.
    await page.fill('#factory-filter', '');
    await page.waitForFunction(() => document.querySelectorAll('#factories tbody tr').length >= 3, undefined, { timeout: 5000 });
    const overview = await getJson(`${base}/api/overview`);
    expect(overview.totals.assignmentP99Ms).toBeGreaterThan(0);
    expect(overview.totals.gamesPerMinute).toBeGreaterThan(0);
    expect(overview.servers.rows.map((s: { serverId: string }) => s.serverId).sort()).toEqual(['coop-eu-1', 'duel-eu-1', 'tiny-v202']);
    expect(overview.servers.rows.find((s: { serverId: string }) => s.serverId === 'tiny-v202')).toMatchObject({ health: 'full', running: TINY_MAX_GAMES, maxGames: TINY_MAX_GAMES });
    const duel = overview.factories.rows.find((f: { name: string }) => f.name === 'duel/version=v201');
    expect(duel.gap.gamesFormed).toBeGreaterThan(0);
    // Nothing private: no ticket or player id anywhere in the JSON.
    expect(JSON.stringify(overview)).not.toMatch(/"(q|c|d)\d+"/);
    // One process, not a cluster node: no cluster section.
    expect(overview.cluster).toBeNull();
    expect(await page.locator('#cluster').isHidden()).toBe(true);

    // Select the duel factory: its own chart appears.
    await page.click(`#factories tr[data-factory="duel/version=v201"]`);
    await page.waitForSelector('#factory-detail:not([hidden])', { timeout: 5000 });

    mkdirSync('test-output', { recursive: true });
    await page.screenshot({ path: 'test-output/operator-page.png', fullPage: true });
    expect(problems).toEqual([]);
  });

  it('answers a bad query with 400 naming the parameter, and leaves /metrics where it was', async () => {
    const res = await fetch(`${base}/api/overview?top=100000`);
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatch(/^top: "100000"/);
    expect((await fetch(`${base}/metrics`)).status).toBe(200);
    expect((await fetch(`${base}/nope`)).status).toBe(404);
  });
});
