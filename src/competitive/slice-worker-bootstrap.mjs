// Entry of a SliceWorkerPool worker thread. A worker starts with a fresh module loader. In the
// compiled distribution (dist/) the worker's JavaScript sits beside this file and loads as is.
// From the sources (tsx, `node --import tsx`, vitest), register tsx's ESM hooks here, resolved
// from this file's own place in the project (so neither the working directory nor the process's
// --import flags matter), then load the TypeScript.
import { existsSync } from 'node:fs';

const compiled = new URL('./slice-worker.js', import.meta.url);
if (existsSync(compiled)) {
  await import(compiled.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('./slice-worker.ts');
}
