// Entry of a SliceWorkerPool worker thread. The project runs TypeScript through tsx, and a worker
// thread starts with a fresh module loader: register tsx's ESM hooks here, resolved from this
// file's own place in the project (so neither the process's working directory nor its
// --import flags matter, under `tsx`, `node --import tsx` or vitest alike), then load the worker.
import { register } from 'tsx/esm/api';

register();
await import('./slice-worker.ts');
