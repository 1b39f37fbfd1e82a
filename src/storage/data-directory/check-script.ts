/**
 * What the checking child runs (CommonJS, `node -e`): open the environment read-only, compare the
 * file's size with the pages its meta page says it uses, then read and decode every record of
 * every database and compare the counts with LMDB's own. Prints one JSON line, {ok} or
 * {problem}; a damaged page that crashes LMDB (SIGSEGV, SIGBUS) kills only this child.
 * Plain JavaScript in a string so it runs the same from the sources (tsx) and from dist.
 */
export const CHECK_SCRIPT = `
const { statSync } = require('node:fs');
const { join } = require('node:path');
const [lmdbPath, dir] = process.argv.slice(1);
const say = (answer) => { process.stdout.write(JSON.stringify(answer) + '\\n'); };
try {
  const size = statSync(join(dir, 'data.mdb')).size;
  if (size === 0) { say({ problem: 'data.mdb is empty (truncated to 0 bytes)' }); process.exit(0); }
  const { open } = require(lmdbPath);
  const root = open({ path: dir, noSubdir: false, compression: false, maxDbs: 8, readOnly: true });
  const stats = root.getStats();
  const needed = (stats.lastPageNumber + 1) * stats.pageSize;
  if (size < needed) { say({ problem: 'data.mdb is truncated: ' + size + ' bytes, its pages need ' + needed }); process.exit(0); }
  const names = [];
  let rootCount = 0;
  for (const key of root.getKeys()) {
    rootCount += 1;
    if (typeof key === 'string' && !key.startsWith('meta:')) names.push(key);
    else root.get(key);
  }
  if (rootCount !== stats.entryCount) { say({ problem: 'the main database lists ' + rootCount + ' of its ' + stats.entryCount + ' records' }); process.exit(0); }
  for (const name of names) {
    const db = root.openDB({ name });
    let count = 0;
    for (const entry of db.getRange()) { count += 1; void entry.value; }
    const expected = db.getStats().entryCount;
    if (count !== expected) { say({ problem: 'database "' + name + '" lists ' + count + ' of its ' + expected + ' records' }); process.exit(0); }
  }
  say({ ok: true });
} catch (error) {
  say({ problem: String(error && error.message || error).split('\\n')[0] });
}
`;
