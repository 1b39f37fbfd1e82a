import type { Browser, Page } from 'playwright-core';
import { createServer, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error the example's bundler is plain JavaScript, as a page's author would write it
import { bundleExample } from '../../packages/matchmaking-client/example/bundle.mjs';
import { TestCoordinator } from '../integration/harness.js';
import { launchChromium } from '../operator-page/browser.js';

const EXAMPLE = new URL('../../packages/matchmaking-client/example/', import.meta.url);

/** The example page and its bundled script, served from an origin of their own. */
async function servePage(): Promise<{ server: Server; origin: string }> {
  const { js } = (await bundleExample()) as { js: string };
  const html = readFileSync(new URL('index.html', EXAMPLE));
  const server = createServer((req, res) => {
    if (req.url?.startsWith('/find-game.js')) res.writeHead(200, { 'content-type': 'text/javascript' }).end(js);
    else res.writeHead(200, { 'content-type': 'text/html' }).end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return { server, origin: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` };
}

/** The page finds a game for `player`; its ticket's line on the page. */
async function find(page: Page, player: string) {
  await page.fill('#player', player);
  await page.click('button[type=submit]');
  return page.locator(`li[data-player="${player}"]`);
}

describe('the matchmaking client in a real browser (Chromium) against a real coordinator over its HTTP gateway', () => {
  let browser: Browser;
  let coordinator: TestCoordinator;
  let page: { server: Server; origin: string };

  beforeAll(async () => {
    page = await servePage();
    // Only the page's origin may call: CORS is closed by default.
    const yaml = `
placement: { policy: fill, createTimeoutMs: 1000, maxQueuedPerFactory: 10, ticketTtlSeconds: 60 }
servers: { keepaliveIntervalMs: 200 }
http: { corsOrigins: ["${page.origin}"] }
factories:
  - name: solo
    partitioning: { region: [eu] }
    cooperative: { maxPlayers: 1 }
`;
    coordinator = await TestCoordinator.start(yaml, undefined, { httpListen: '127.0.0.1:0' });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await coordinator?.stop();
    page?.server.close();
  });

  it('finds a game from the example page: queued with its position, then assigned; another ticket cancelled from the page', { timeout: 60_000 }, async () => {
    // A server with no free slot: finds wait in the queue, and the page shows their places.
    const server = await coordinator.server({ serverId: 'full', maxGames: 0, attributes: { region: 'eu' } });
    const tab = await browser.newPage();
    const errors: string[] = [];
    tab.on('pageerror', (error) => errors.push(error.message));
    await tab.goto(`${page.origin}/?coordinator=http://127.0.0.1:${coordinator.running.httpPort}`);

    const alice = await find(tab, 'alice');
    await expect.poll(() => alice.locator('.state').textContent()).toBe('queued: position 1 in solo/region=eu');
    const bob = await find(tab, 'bob');
    await expect.poll(() => bob.locator('.state').textContent()).toBe('queued: position 2 in solo/region=eu');

    // Bob cancels from the page: the coordinator drops his ticket (CANCELLED), Alice keeps her place.
    await bob.locator('button').click();
    await expect.poll(() => bob.locator('.state').textContent()).toMatch(/^failed: ticket .*: CANCELLED: cancelled by the client$/);
    await expect.poll(() => coordinator.running.coordinator.view.queuedIn('solo/region=eu')).toBe(1);

    // A slot opens: Alice is placed, and the page shows where to play.
    server.setCapacity(1);
    await expect.poll(() => alice.locator('.state').textContent(), { timeout: 10_000 }).toMatch(/^assigned: game \S+ at full\.example:7777$/);
    expect(errors).toEqual([]);
  });
});
