// The operator page: polls GET /api/overview every second and draws it with uPlot.
'use strict';
(function () {
  const POLL_MS = 1000;
  const $ = (id) => document.getElementById(id);
  const state = { selected: '' };
  const charts = {};
  // Exposed for the browser test and for poking at from the devtools console.
  window.operatorPage = { charts, polls: 0 };

  const fmt = (v, digits = 0) =>
    v === null || v === undefined ? '–' : Number(v).toLocaleString('en-US', { maximumFractionDigits: digits });

  // A label ending in "ms" goes on a second y scale (right axis), so waits and counts share a chart.
  function chart(id, series, colors) {
    const el = $(id);
    const msScale = (label) => / ms$/.test(label) && series.some((l) => !/ ms$/.test(l));
    const opts = {
      width: el.clientWidth || 400,
      height: 160,
      legend: { live: false },
      scales: { x: { time: true } },
      axes: [{}, { size: 56 }, ...(series.some(msScale) ? [{ scale: 'ms', side: 1, size: 56, grid: { show: false } }] : [])],
      series: [{}, ...series.map((label, i) => ({ label, stroke: colors[i], width: 1.5, spanGaps: true, ...(msScale(label) ? { scale: 'ms' } : {}) }))],
    };
    const plot = new uPlot(opts, [[], ...series.map(() => [])], el);
    charts[id] = plot;
    return plot;
  }

  const palette = ['#3b5bdb', '#e8590c', '#2f9e44', '#ae3ec9'];
  chart('chart-waiting', ['waiting tickets', 'queue length'], palette);
  chart('chart-assignment', ['p50', 'p99'], palette);
  chart('chart-games', ['games / min', 'starts / s'], palette);
  chart('chart-servers', ['running', 'game slots'], palette);

  window.addEventListener('resize', () => {
    for (const plot of Object.values(charts)) plot.setSize({ width: plot.root.parentElement.clientWidth - 12, height: 160 });
  });

  function column(series, name) {
    return series.data[series.columns.indexOf(name)] || [];
  }

  function drawSeries(series) {
    const t = column(series, 't').map((ms) => ms / 1000);
    charts['chart-waiting'].setData([t, column(series, 'waitingTickets'), column(series, 'queueLength')]);
    charts['chart-assignment'].setData([t, column(series, 'assignmentP50Ms'), column(series, 'assignmentP99Ms')]);
    charts['chart-games'].setData([t, column(series, 'gamesPerMinute'), column(series, 'startsPerSecond')]);
    charts['chart-servers'].setData([t, column(series, 'running'), column(series, 'capacity')]);
  }

  function drawTotals(t) {
    const tiles = [
      ['factories', fmt(t.factories)],
      ['servers', fmt(t.servers)],
      ['waiting tickets', fmt(t.waitingTickets)],
      ['queue length', fmt(t.queueLength)],
      ['games / min', fmt(t.gamesPerMinute, 1)],
      ['to assignment p50', t.assignmentP50Ms === null ? '–' : fmt(t.assignmentP50Ms) + ' ms'],
      ['to assignment p99', t.assignmentP99Ms === null ? '–' : fmt(t.assignmentP99Ms) + ' ms'],
      ['open games · slots', fmt(t.openGames) + ' · ' + fmt(t.openSlots)],
      ['games running / game slots', fmt(t.running) + ' / ' + fmt(t.capacity)],
      ['starts / s', fmt(t.startsPerSecond, 1)],
      ['servers backed off', fmt(t.unhealthyServers)],
    ];
    const box = $('totals');
    box.replaceChildren(
      ...tiles.map(([k, v]) => {
        const tile = document.createElement('div');
        tile.className = 'tile';
        tile.dataset.total = k;
        const value = document.createElement('div');
        value.className = 'v';
        value.textContent = v;
        const key = document.createElement('div');
        key.className = 'k';
        key.textContent = k;
        tile.append(value, key);
        return tile;
      }),
    );
  }

  function row(cells, attrs) {
    const tr = document.createElement('tr');
    for (const [k, v] of Object.entries(attrs)) tr.dataset[k] = v;
    for (const [field, text, cls] of cells) {
      const td = document.createElement('td');
      td.dataset.field = field;
      td.textContent = text;
      if (cls) td.className = cls;
      tr.append(td);
    }
    return tr;
  }

  function drawFactories(list) {
    $('factory-count').textContent = `${list.rows.length} shown of ${list.matching} matching · ${list.total} factories`;
    $('factories').tBodies[0].replaceChildren(
      ...list.rows.map((f) => {
        const gap = f.gap ? `${fmt(f.recentGapSigma, 2)} · ${fmt(f.gap.meanSigma, 2)} · ${fmt(f.gap.p99Sigma, 2)}` : '';
        // The distribution as five bars (0.5 to 1), then the mean chance: a coin toss is 0.50.
        const favourite = f.recentFavourite
          ? `${f.recentFavourite.shares.map((s) => '▁▂▃▄▅▆▇█'[Math.min(7, Math.floor(s * 8))]).join('')} ${fmt(f.recentFavourite.mean, 2)}`
          : '';
        const tr = row(
          [
            ['name', f.name],
            ['strategy', f.strategy],
            ['waitingTickets', fmt(f.waitingTickets), 'n'],
            ['queueLength', String(f.queueLength), 'n'],
            ['assignmentP50Ms', fmt(f.assignmentP50Ms), 'n'],
            ['assignmentP99Ms', fmt(f.assignmentP99Ms), 'n'],
            ['gamesPerMinute', fmt(f.gamesPerMinute, 1), 'n'],
            ['openGames', fmt(f.openGames), 'n'],
            ['openSlots', fmt(f.openSlots), 'n'],
            ['servers', fmt(f.servers), 'n'],
            ['gap', gap, 'n'],
            ['favourite', favourite, 'n'],
            ['backfill', f.backfill ? `${fmt(f.backfill.requests)} · ${fmt(f.backfill.seats)} · ${fmt(f.backfill.filled)}` : '', 'n'],
          ],
          { factory: f.name },
        );
        if (f.name === state.selected) tr.classList.add('selected');
        tr.addEventListener('click', () => {
          state.selected = state.selected === f.name ? '' : f.name;
          poll();
        });
        return tr;
      }),
    );
  }

  function drawServers(list) {
    $('server-count').textContent = `${list.rows.length} shown of ${list.matching} matching · ${list.total} servers`;
    $('servers').tBodies[0].replaceChildren(
      ...list.rows.map((s) =>
        row(
          [
            ['serverId', s.serverId],
            ['health', s.health, 'health-' + s.health],
            ['running', fmt(s.running), 'n'],
            ['starting', fmt(s.starting), 'n'],
            ['maxGames', fmt(s.maxGames), 'n'],
            ['load', s.maxGames === 0 ? '–' : fmt((100 * (s.running + s.starting)) / s.maxGames) + ' %', 'n'],
            ['startsPerSecond', fmt(s.startsPerSecond, 1), 'n'],
            ['maxStartsPerSecond', s.maxStartsPerSecond === 0 ? 'unlimited' : fmt(s.maxStartsPerSecond, 1), 'n'],
            ['factories', fmt(s.factories), 'n'],
          ],
          { server: s.serverId },
        ),
      ),
    );
  }

  // Shard numbers as ranges: 0-3, 8, 10-12.
  function ranges(list) {
    const out = [];
    for (let i = 0; i < list.length; i++) {
      let j = i;
      while (j + 1 < list.length && list[j + 1] === list[j] + 1) j++;
      out.push(j === i ? String(list[i]) : `${list[i]}-${list[j]}`);
      i = j;
    }
    return out.join(', ');
  }

  function drawCluster(c) {
    $('cluster').hidden = !c;
    $('factories-scope').textContent = c ? ' of this node' : '';
    if (!c) return;
    $('cluster-count').textContent = `${c.nodes.length} nodes · ${c.factories.rows.length} shown of ${c.factories.matching} matching · ${c.factories.total} factories in the cluster`;
    $('cluster-nodes').tBodies[0].replaceChildren(
      ...c.nodes.map((n) =>
        row(
          [
            ['node', n.self ? `${n.node} (this node)` : n.node],
            ['shards', n.shards === null ? '–' : `${n.shards.length}: ${ranges(n.shards)}`],
            ['running', n.running ? 'yes' : 'no'],
            ['factories', fmt(n.factories), 'n'],
            ['waitingTickets', fmt(n.waitingTickets), 'n'],
            ['games', fmt(n.games), 'n'],
            ['openGames', fmt(n.openGames), 'n'],
            ['ageMs', fmt(n.ageMs) + ' ms', 'n'],
          ],
          { node: n.node },
        ),
      ),
    );
    $('cluster-factories').tBodies[0].replaceChildren(
      ...c.factories.rows.map((f) =>
        row(
          [
            ['name', f.name],
            ['node', f.node],
            ['shard', f.shard === undefined ? '–' : String(f.shard), 'n'],
            ['strategy', f.strategy],
            ['waitingTickets', fmt(f.waitingTickets), 'n'],
            ['queueLength', fmt(f.queueLength), 'n'],
            ['games', fmt(f.games), 'n'],
            ['players', fmt(f.players), 'n'],
            ['openGames', fmt(f.openGames), 'n'],
            ['openSlots', fmt(f.openSlots), 'n'],
            ['servers', fmt(f.servers), 'n'],
            ['gap', f.gap ? `${fmt(f.gap.meanSigma, 2)} · ${fmt(f.gap.p99Sigma, 2)}` : '', 'n'],
          ],
          { factory: f.name, node: f.node },
        ),
      ),
    );
  }

  function drawSelected(fs) {
    const box = $('factory-detail');
    if (!fs) {
      box.hidden = true;
      return;
    }
    box.hidden = false;
    $('factory-detail-title').textContent = `${fs.factory}: waiting tickets · queue length · games / min (left) · p99 to assignment in ms (right)`;
    if (!charts['chart-factory']) chart('chart-factory', ['waiting', 'queue', 'p99 ms', 'games / min'], palette);
    const col = (name) => fs.data[fs.columns.indexOf(name)] || [];
    charts['chart-factory'].setData([
      col('t').map((ms) => ms / 1000), col('waitingTickets'), col('queueLength'), col('assignmentP99Ms'), col('gamesPerMinute'),
    ]);
  }

  let inFlight = false;
  async function poll() {
    if (inFlight) return;
    inFlight = true;
    const q = new URLSearchParams({
      top: $('top').value,
      factory_filter: $('factory-filter').value,
      factory_sort: $('factory-sort').value,
      server_filter: $('server-filter').value,
      server_sort: $('server-sort').value,
    });
    if (state.selected) q.set('factory', state.selected);
    try {
      const res = await fetch('/api/overview?' + q);
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      const o = await res.json();
      if (o.totals) drawTotals(o.totals);
      drawSeries(o.series);
      drawFactories(o.factories);
      drawServers(o.servers);
      drawSelected(o.factorySeries);
      drawCluster(o.cluster);
      $('status').className = 'status live';
      $('status').textContent = 'live · ' + new Date(o.at).toLocaleTimeString();
      window.operatorPage.polls += 1;
    } catch (err) {
      $('status').className = 'status down';
      $('status').textContent = 'no answer from the coordinator (' + err.message + ')';
    } finally {
      inFlight = false;
    }
  }

  for (const id of ['factory-filter', 'server-filter']) $(id).addEventListener('input', poll);
  for (const id of ['factory-sort', 'server-sort', 'top']) $(id).addEventListener('change', poll);
  poll();
  setInterval(poll, POLL_MS);
})();
