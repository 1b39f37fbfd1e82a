#!/usr/bin/env node
import { startMatchFunction } from './server.js';

/** `gamefactory-match-function-example [--listen HOST:PORT]` (default 127.0.0.1:50061). */
const at = process.argv.indexOf('--listen');
const listen = at >= 0 ? process.argv[at + 1] ?? '' : '127.0.0.1:50061';
const running = await startMatchFunction({ listen });
console.log(`match function listening on ${listen.replace(/:\d+$/, `:${running.port}`)}`);
const stop = () => void running.stop().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
