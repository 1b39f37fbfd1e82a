import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { ClusterOverview } from '../cluster/stats/cluster-board.js';
import type { OperatorBoard } from './operator-board.js';
import { overview, parseOverviewQuery } from './overview.js';

interface Asset {
  readonly type: string;
  readonly body: Buffer;
}

/** The page's files, read once: its own from assets/, uPlot from node_modules (no CDN: works offline). */
function loadAssets(): Map<string, Asset> {
  const own = (name: string) => readFileSync(fileURLToPath(new URL(`./assets/${name}`, import.meta.url)));
  const require = createRequire(import.meta.url);
  const uplot = (name: string) => readFileSync(require.resolve(`uplot/dist/${name}`));
  return new Map([
    ['/', { type: 'text/html; charset=utf-8', body: own('index.html') }],
    ['/assets/page.js', { type: 'text/javascript; charset=utf-8', body: own('page.js') }],
    ['/assets/page.css', { type: 'text/css; charset=utf-8', body: own('page.css') }],
    ['/assets/uPlot.iife.min.js', { type: 'text/javascript; charset=utf-8', body: uplot('uPlot.iife.min.js') }],
    ['/assets/uPlot.min.css', { type: 'text/css; charset=utf-8', body: uplot('uPlot.min.css') }],
  ]);
}

/**
 * Routes of the operator page on the metrics port: GET / (the page), /assets/*, and
 * GET /api/overview (JSON for the page and for scripts; on a cluster node with the cluster's
 * boards). Returns false for any other request.
 */
export function operatorRoutes(board: OperatorBoard, cluster?: () => ClusterOverview | undefined): (req: IncomingMessage, res: ServerResponse) => boolean {
  const assets = loadAssets();
  return (req, res) => {
    if (req.method !== 'GET') return false;
    const url = new URL(req.url ?? '/', 'http://page');
    const asset = assets.get(url.pathname);
    if (asset) {
      res.writeHead(200, { 'content-type': asset.type, 'cache-control': 'no-cache' });
      res.end(asset.body);
      return true;
    }
    if (url.pathname !== '/api/overview') return false;
    let body: string;
    try {
      body = JSON.stringify(overview(board, parseOverviewQuery(url.searchParams), cluster?.()));
    } catch (err) {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: (err as Error).message }));
      return true;
    }
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    res.end(body);
    return true;
  };
}
