/**
 * Preloaded into a node under the scale-out bench (NODE_OPTIONS=--import=<this file>): counts the
 * Redis commands the node sends (a script call is one) and its round trips (the commands one
 * connection sends in one tick travel and return together: one trip), and writes both to
 * GF_REDIS_METER_FILE every 200 ms. Plain JavaScript, so it loads before tsx.
 */
import { openSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isMainThread } from 'node:worker_threads';

const file = process.env.GF_REDIS_METER_FILE;
// NODE_OPTIONS reaches the node's worker threads too; only the main thread talks to Redis.
if (file && isMainThread) {
  // The app loads ioredis (CommonJS) through require's cache: patch that very module.
  const require = createRequire(new URL('../../package.json', import.meta.url));
  const { Redis } = require('ioredis');
  const counts = { commands: 0, trips: 0 };
  const inTick = new WeakSet();
  const send = Redis.prototype.sendCommand;
  Redis.prototype.sendCommand = function (...args) {
    counts.commands++;
    if (!inTick.has(this)) {
      counts.trips++;
      inTick.add(this);
      queueMicrotask(() => inTick.delete(this));
    }
    return send.apply(this, args);
  };
  // One descriptor, overwritten in place (padded to a fixed width) and only when the counts
  // moved: an open, truncate and close five times a second showed in the node's own CPU profile.
  const fd = openSync(file, 'w');
  let written = '';
  const flush = () => {
    const text = JSON.stringify(counts);
    if (text === written) return;
    written = text;
    writeSync(fd, text.padEnd(96), 0, 'utf8');
  };
  flush();
  setInterval(flush, 200).unref();
}
